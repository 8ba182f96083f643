import { lstat, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import { z } from "zod";
import { type McpServerConfig, parseMcpServers } from "../mcp/config.ts";
import {
  layerDefaults,
  NO_RUN_DEFAULTS,
  type RunDefaults,
  runDefaultsOf,
} from "../run-defaults.ts";
import { describePinChanges, namedScripts, pinDefinitions } from "./trust-pins.ts";
import { readTrustEntry, recordTrust, trustFileOf } from "./workspace-trust.ts";

/**
 * Settings files (docs/contracts.md §7, lesson 36): `$CODING_AGENT_HOME/settings.json` (the user's,
 * always trusted) and `<workspace>/.coding-agent/settings.json` (the workspace's, read only
 * when the workspace is trusted). Their `hooks` are in Claude Code's shape, flattened as §7
 * writes it; their `mcpServers` (lesson 37) in the `.mcp.json` shape (`../mcp/config.ts`),
 * under the same trust rule; other top-level keys are left to whoever reads them.
 */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "Stop"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** A hook's time limit when its entry gives none (Claude Code's default is a minute; §7 says 10 s). */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

/** The path of the workspace's settings file, relative to the workspace. */
export const WORKSPACE_SETTINGS = path.join(".coding-agent", "settings.json");

const HookEntrySchema = z.strictObject({
  matcher: z
    .string()
    .check((ctx) => {
      if (ctx.value === "" || ctx.value === "*") return;
      try {
        new RegExp(ctx.value);
      } catch (error) {
        ctx.issues.push({
          code: "custom",
          message: `不是有效的正则表达式（${(error as Error).message}）`,
          input: ctx.value,
        });
      }
    })
    .optional(),
  command: z.string().trim().min(1, "需要要执行的命令（非空字符串）"),
  timeoutMs: z
    .int("需要整数毫秒数")
    .min(1, "至少 1 毫秒")
    .max(600_000, "最多 600000 毫秒")
    .default(DEFAULT_HOOK_TIMEOUT_MS),
});

const SettingsSchema = z.looseObject({
  hooks: z
    .strictObject({
      PreToolUse: z.array(HookEntrySchema).optional(),
      PostToolUse: z.array(HookEntrySchema).optional(),
      Stop: z.array(HookEntrySchema).optional(),
    })
    .optional(),
});

/** One configured hook, with where it came from (named in every message about it). */
export interface HookEntry {
  readonly event: HookEvent;
  /** Anchored regex on the whole tool name; undefined: every tool. */
  readonly matcher: RegExp | undefined;
  /** The matcher as the settings file writes it (named on stderr when the hook fails). */
  readonly matcherText?: string;
  readonly command: string;
  readonly timeoutMs: number;
  /** `<file> hooks.<event>[<index>]`. */
  readonly label: string;
  readonly source: "user" | "workspace";
}

export type HookSettings =
  | {
      readonly ok: true;
      readonly hooks: readonly HookEntry[];
      /** The MCP servers, the user's first, then a trusted workspace's. */
      readonly mcpServers: readonly McpServerConfig[];
      /** Workspace files (relative) those hooks and servers run: the agent's tools never write them. */
      readonly scripts: readonly string[];
      /** The `run` defaults: the user's, with a trusted workspace's over them (`../run-defaults.ts`). */
      readonly runDefaults: RunDefaults;
      /** The one warning to print: a workspace whose settings were ignored. */
      readonly warning?: string;
    }
  | { readonly ok: false; readonly message: string };

/**
 * The hooks of a run: the user's, then the workspace's when the workspace is trusted
 * (`trustWorkspace`, or its real path in `trusted.json`). An untrusted workspace's settings
 * file is never parsed and gives one warning when it exists. A trusted workspace's settings
 * file must really be inside it (a symlink out of the workspace is refused, exit 2), since
 * "trusted" is a statement about this folder, not about wherever a link points.
 *
 * Trust is pinned to content (docs/contracts.md §8): `trustWorkspace` records the hashes of the
 * workspace's hook and MCP definitions and of the scripts they name (`trust-pins.ts`) in
 * `trusted.json`; an entry recorded so trusts those definitions only, and a changed one is
 * ignored, with one warning saying what changed, until trusted again. A plain path the
 * user wrote there trusts whatever the workspace defines, as it always did.
 */
export async function loadHookSettings(options: {
  /** The workspace's real path. */
  readonly workspace: string;
  readonly home: string;
  readonly trustWorkspace: boolean;
}): Promise<HookSettings> {
  const { workspace, home } = options;
  const userFile = path.join(home, "settings.json");
  const user = await readSettings(userFile, "user");
  if (!user.ok) return user;
  const workspaceFile = path.join(workspace, WORKSPACE_SETTINGS);
  const present = await exists(workspaceFile);
  const [realUser, realWorkspaceFile] = await Promise.all([
    realpath(userFile).catch(() => undefined),
    realpath(workspaceFile).catch(() => undefined),
  ]);
  // The workspace is the user's home folder: its settings file is the user's own.
  if (present && realUser !== undefined && realUser === realWorkspaceFile)
    return withScripts(workspace, user);
  const entry = await readTrustEntry(workspace, home);
  if (typeof entry === "string") return { ok: false, message: entry };
  const trustAgain = `确认无误后加 --trust-workspace 再次信任`;
  if (!options.trustWorkspace) {
    if (!present) return withScripts(workspace, user);
    if (entry.kind === "none") {
      const warning = `警告：工作区 ${workspace} 未被信任，忽略它的 ${WORKSPACE_SETTINGS}（其中的 hooks 和 MCP 服务器不会运行）。信任它：加 --trust-workspace，或把它的真实路径写进 ${trustFileOf(home)} 的 workspaces`;
      return withScripts(workspace, { ...user, warning });
    }
  }
  if (present && (realWorkspaceFile === undefined || !isInside(workspace, realWorkspaceFile))) {
    return {
      ok: false,
      message: `设置文件 ${workspaceFile} 无效：它指向工作区之外（${realWorkspaceFile ?? "不存在的目标"}），不读取`,
    };
  }
  if (!options.trustWorkspace && entry.kind === "pinned") {
    const text = await readFile(workspaceFile, "utf8").catch(() => "");
    const parsed = parseJson(text);
    // A file that is no longer JSON pins as its text: it differs, and says so.
    const current = await pinDefinitions(workspace, parsed.ok ? parsed.value : text);
    const changed = describePinChanges(entry.pins, current);
    if (changed !== undefined) {
      const warning = `警告：工作区 ${workspace} 的 hooks/MCP 定义在信任之后变了（${changed}），忽略它的 ${WORKSPACE_SETTINGS}；${trustAgain}`;
      return withScripts(workspace, { ...user, warning });
    }
  }
  const own = present
    ? await readSettings(workspaceFile, "workspace")
    : { ok: true as const, hooks: [], mcpServers: [], document: {}, runDefaults: NO_RUN_DEFAULTS };
  if (!own.ok) return own;
  const combined = {
    ok: true as const,
    hooks: [...user.hooks, ...own.hooks],
    mcpServers: [...user.mcpServers, ...own.mcpServers],
    runDefaults: layerDefaults(user.runDefaults, own.runDefaults),
  };
  if (!options.trustWorkspace) return withScripts(workspace, combined);
  const failed = await recordTrust(workspace, home, await pinDefinitions(workspace, own.document));
  return withScripts(workspace, {
    ...combined,
    ...(failed === undefined ? {} : { warning: `警告：${failed}` }),
  });
}

/** Adds the workspace scripts the loaded hooks and MCP servers name (the agent must not write them). */
async function withScripts(
  workspace: string,
  settings: Omit<Extract<HookSettings, { ok: true }>, "scripts">,
): Promise<HookSettings> {
  const commands = [
    ...settings.hooks.map((hook) => hook.command),
    ...settings.mcpServers.flatMap((server) =>
      server.transport === "stdio" ? [[server.command, ...server.args].join(" ")] : [],
    ),
  ];
  return {
    ok: true,
    hooks: settings.hooks,
    mcpServers: settings.mcpServers,
    scripts: await namedScripts(workspace, commands),
    runDefaults: settings.runDefaults,
    ...(settings.warning === undefined ? {} : { warning: settings.warning }),
  };
}

async function readSettings(
  file: string,
  source: HookEntry["source"],
): Promise<
  | {
      ok: true;
      hooks: HookEntry[];
      mcpServers: readonly McpServerConfig[];
      /** The file as parsed: what trust pins. */
      document: unknown;
      runDefaults: RunDefaults;
    }
  | { ok: false; message: string }
> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) =>
    absent(error) ? undefined : error,
  );
  if (text === undefined)
    return { ok: true, hooks: [], mcpServers: [], document: {}, runDefaults: NO_RUN_DEFAULTS };
  if (text instanceof Error)
    return { ok: false, message: `设置文件 ${file} 读不了：${text.message}` };
  const parsed = parseJson(text);
  if (!parsed.ok)
    return { ok: false, message: `设置文件 ${file} 不是有效的 JSON：${parsed.message}` };
  const checked = SettingsSchema.safeParse(parsed.value);
  if (!checked.success) {
    const details = formatValueIssues(toValueIssues(checked.error.issues), "；");
    return { ok: false, message: `设置文件 ${file} 无效：${details}` };
  }
  const servers = parseMcpServers(checked.data.mcpServers, file);
  if (!servers.ok) return { ok: false, message: `设置文件 ${file} 无效：${servers.details}` };
  const run = runDefaultsOf(parsed.value, file, source);
  if (!run.ok) return run;
  const hooks: HookEntry[] = [];
  for (const event of HOOK_EVENTS) {
    const entries = checked.data.hooks?.[event] ?? [];
    entries.forEach((entry, index) => {
      hooks.push({
        event,
        matcher: matcherOf(entry.matcher),
        ...(entry.matcher === undefined ? {} : { matcherText: entry.matcher }),
        command: entry.command,
        timeoutMs: entry.timeoutMs,
        label: `${file} hooks.${event}[${index}]`,
        source,
      });
    });
  }
  return {
    ok: true,
    hooks,
    mcpServers: servers.servers,
    document: parsed.value,
    runDefaults: run.defaults,
  };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

async function exists(file: string): Promise<boolean> {
  // lstat: a dangling symlink is a settings file too (and refused, not silently skipped).
  return lstat(file).then(
    () => true,
    () => false,
  );
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative !== "" && relative.split(path.sep)[0] !== ".." && !path.isAbsolute(relative);
}

/** No such file (nor a folder to hold one: a home that is a file has no settings either). */
function absent(error: NodeJS.ErrnoException): boolean {
  return error.code === "ENOENT" || error.code === "ENOTDIR";
}

/**
 * A matcher as an anchored regex on the whole tool name; undefined (every tool) when absent,
 * and, as in Claude Code, for `""` and `"*"` (which is no regex at all).
 */
function matcherOf(matcher: string | undefined): RegExp | undefined {
  if (matcher === undefined || matcher === "" || matcher === "*") return undefined;
  return new RegExp(`^(?:${matcher})$`);
}
