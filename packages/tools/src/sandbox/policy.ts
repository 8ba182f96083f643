import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { SECRET_ENV_NAME } from "@coding-agent/agent-core";
import { agentConfigMounts } from "../edits/agent-config.ts";
import type { Workspace } from "../workspace.ts";

/** Variables a child may inherit by default: enough for ordinary programs, no credentials. */
export const DEFAULT_ENV_ALLOWLIST = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TERM",
  "TZ",
  "TMPDIR",
] as const;

/** What may run and with what: the rules `run_command` checks before spawning. */
export interface SandboxPolicy {
  /** Every command runs here: the workspace root. */
  readonly cwd: string;
  /**
   * Finds a program by bare name on the policy's PATH. A name with a slash
   * (`../bin/x`, `./x`, `/usr/bin/x`) is refused: only names the user can allow.
   */
  resolveProgram(name: string): Promise<ProgramResolution>;
  /** The environment a child gets: the allowlisted variables, never a secret-looking one. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Absolute paths a bwrap sandbox binds read-only over the writable workspace: the
   * agent's own configuration (`agentConfigMounts`). Absent: none besides bwrap's defaults.
   */
  readonly readOnly?: readonly string[];
}

export type ProgramResolution =
  | { readonly ok: true; readonly path: string; readonly allowed: boolean }
  | { readonly ok: false; readonly reason: string };

export interface PolicyOptions {
  readonly workspace: Workspace;
  /** Program names that may run without asking (`--allow-command`). */
  readonly allowCommands: readonly string[];
  /** The parent's environment; `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Variables passed through besides `DEFAULT_ENV_ALLOWLIST` (secret-looking ones still are not). */
  readonly allowEnv?: readonly string[];
  /** Workspace paths of the scripts hooks and MCP servers run, read-only under bwrap. */
  readonly protectedFiles?: readonly string[];
}

const PROGRAM_NAME = /^[A-Za-z0-9_+][A-Za-z0-9._+-]*$/;

/** Creates the policy for one run. */
export function createSandboxPolicy(options: PolicyOptions): SandboxPolicy {
  const env = buildChildEnv(options.env ?? process.env, [
    ...DEFAULT_ENV_ALLOWLIST,
    ...(options.allowEnv ?? []),
  ]);
  const allowed = new Set(options.allowCommands);
  // A PATH entry that is relative or inside the workspace would let the model plant a
  // program under an allowed name: only absolute folders outside it are searched.
  const searchPath = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir) && !options.workspace.contains(path.resolve(dir)));
  return {
    cwd: options.workspace.root,
    env,
    readOnly: agentConfigMounts(options.workspace.root, options.protectedFiles),
    async resolveProgram(name) {
      if (!PROGRAM_NAME.test(name)) {
        return {
          ok: false,
          reason: `程序要写名字，不能带路径或特殊字符：${JSON.stringify(name)}`,
        };
      }
      const found = await findOnPath(name, searchPath);
      if (found === undefined) return { ok: false, reason: `在 PATH 上找不到程序：${name}` };
      return { ok: true, path: found, allowed: allowed.has(name) };
    },
  };
}

/**
 * The child's environment: only names on the allowlist, and of those never one that
 * looks like a credential (`*_KEY`, `*_TOKEN`, `*_SECRET`, passwords, auth, cookies…).
 */
export function buildChildEnv(
  parent: Readonly<Record<string, string | undefined>>,
  allowlist: readonly string[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of new Set(allowlist)) {
    // Own variables only: `constructor` or `toString` would otherwise read a function off
    // the prototype (process.env has them too) and hand the child its source text.
    const value = Object.hasOwn(parent, name) ? parent[name] : undefined;
    if (typeof value !== "string" || SECRET_ENV_NAME.test(name)) continue;
    env[name] = value;
  }
  return env;
}

/** The first executable file called `name` in `dirs`, as an absolute path. */
export async function findOnPath(
  name: string,
  dirs: readonly string[],
): Promise<string | undefined> {
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutableFile(candidate: string): Promise<boolean> {
  try {
    await access(candidate, constants.X_OK);
    return (await stat(candidate)).isFile();
  } catch {
    return false;
  }
}
