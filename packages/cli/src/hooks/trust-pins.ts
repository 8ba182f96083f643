import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * What trusting a workspace pins (docs/contracts.md §8 "Trust"): a hash of each hook and MCP server
 * definition in its settings file, of each `run` default it sets, and of each script file a
 * definition names. Keys say
 * what a hash is of, so a difference can be told in words:
 * `hooks.PreToolUse[0]`, `mcpServers.docs`, `file:scripts/check.sh`.
 */
export type TrustPins = Readonly<Record<string, string>>;

/** The pins of a settings document (already parsed JSON) in `workspace` (a real path). */
export async function pinDefinitions(workspace: string, settings: unknown): Promise<TrustPins> {
  const pins: Record<string, string> = {};
  const doc = isRecord(settings) ? settings : {};
  const commands: string[] = [];
  const hooks = isRecord(doc.hooks) ? doc.hooks : {};
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) {
      pins[`hooks.${event}`] = hashOf(JSON.stringify(entries));
      continue;
    }
    entries.forEach((entry: unknown, index) => {
      pins[`hooks.${event}[${index}]`] = hashOf(JSON.stringify(entry));
      if (isRecord(entry) && typeof entry.command === "string") commands.push(entry.command);
    });
  }
  const servers = isRecord(doc.mcpServers) ? doc.mcpServers : {};
  for (const [name, entry] of Object.entries(servers)) {
    pins[`mcpServers.${name}`] = hashOf(JSON.stringify(entry));
    if (!isRecord(entry)) continue;
    const args = Array.isArray(entry.args) ? entry.args.filter((a) => typeof a === "string") : [];
    if (typeof entry.command === "string") commands.push([entry.command, ...args].join(" "));
  }
  // The run defaults a workspace may set (allowed commands, the test command, budgets) are
  // trusted with the rest: a changed one is a changed definition.
  const run = isRecord(doc.run) ? doc.run : {};
  for (const [key, value] of Object.entries(run))
    pins[`run.${key}`] = hashOf(JSON.stringify(value));
  for (const file of await namedScripts(workspace, commands)) {
    const bytes = await readFile(path.join(workspace, file)).catch(() => undefined);
    if (bytes !== undefined) pins[`file:${file}`] = hashOf(bytes);
  }
  return pins;
}

/**
 * The workspace files (relative, `/` separators) that `commands` name: each word of a
 * command that, taken relative to the workspace (or as an absolute path), is a regular
 * file inside it. `sh scripts/check.sh`, `./hook.sh`, `node tools/server.js` name one;
 * `node`, `-y` and `$HOME/x` name none. A script named this way is one the agent must
 * not rewrite and whose change untrusts the workspace.
 */
export async function namedScripts(
  workspace: string,
  commands: readonly string[],
): Promise<string[]> {
  const words = new Set(
    commands.flatMap((command) => command.split(/[\s;|&()<>'"`=]+/)).filter(Boolean),
  );
  const found = new Set<string>();
  for (const word of words) {
    if (word.includes("$") || word.startsWith("-")) continue;
    const absolute = path.resolve(workspace, word);
    const relative = path.relative(workspace, absolute);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) continue;
    const stats = await lstat(absolute).catch(() => undefined);
    if (stats?.isFile()) found.add(relative.split(path.sep).join("/"));
  }
  return [...found].sort();
}

/**
 * One line (Chinese) saying how `current` differs from `pinned`: which definitions or
 * scripts were added, removed or changed; undefined when nothing did.
 */
export function describePinChanges(pinned: TrustPins, current: TrustPins): string | undefined {
  const changes: string[] = [];
  const label = (key: string) => (key.startsWith("file:") ? key.slice("file:".length) : key);
  for (const key of Object.keys(current).sort()) {
    if (!(key in pinned)) changes.push(`${label(key)} 新增`);
    else if (pinned[key] !== current[key]) changes.push(`${label(key)} 已修改`);
  }
  for (const key of Object.keys(pinned).sort())
    if (!(key in current)) changes.push(`${label(key)} 已删除`);
  return changes.length === 0 ? undefined : changes.join("；");
}

function hashOf(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
