import { realpath } from "node:fs/promises";
import path from "node:path";
import { loadHookSettings } from "./hooks/settings.ts";
import type { CliEnv } from "./model-provider.ts";
import { parseArgsOrExplain } from "./parse-args.ts";
import { NO_RUN_DEFAULTS, type RunDefaultsResult, readUserRunDefaults } from "./run-defaults.ts";
import { codingAgentHome } from "./run-files.ts";
import { RUN_PARSE_OPTIONS } from "./run-flags.ts";

/**
 * The settings defaults of `coding-agent run <args>`: the user's `run` settings, with a
 * trusted workspace's over them (the workspace and the trust flag read from `args`, as the
 * run will). A command line that does not parse gets none: `parseCliArgs` reports it.
 */
export async function loadRunDefaults(
  args: readonly string[],
  env: CliEnv,
): Promise<RunDefaultsResult> {
  const home = codingAgentHome(env);
  const parsed = parseArgsOrExplain({
    args: [...args],
    options: RUN_PARSE_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  if (!parsed.ok) return { ok: true, defaults: NO_RUN_DEFAULTS };
  const values = parsed.parsed.values;
  const folder = typeof values.workspace === "string" ? values.workspace : ".";
  const workspace = await realpath(path.resolve(folder)).catch(() => undefined);
  // No workspace folder: the run will say so; only the user's own defaults can apply.
  if (workspace === undefined) return readUserRunDefaults(home);
  const settings = await loadHookSettings({
    workspace,
    home,
    trustWorkspace: values["trust-workspace"] === true,
  });
  return settings.ok ? { ok: true, defaults: settings.runDefaults } : settings;
}
