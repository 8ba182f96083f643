import picomatch from "picomatch";
import { EXCLUDED_DIRS } from "../fs-read.ts";
import { isAgentConfig } from "./agent-config.ts";

/** Decides which workspace paths edits may touch (`--allow-path`). */
export type PathAllowance = (relative: string) => boolean;

/**
 * The check for `--allow-path` globs, matched against paths relative to the workspace
 * root (`/` separators, dot files included). No glob means the whole workspace. A glob
 * naming a folder (`src`, `src/`) allows everything below it. `.git/` and
 * `node_modules/` are never writable, whatever the globs say: a hook written into
 * `.git/hooks` or a planted `node_modules/.bin` program would run code on the next
 * commit or test run. For the same reason the agent's own configuration is never
 * writable (`isAgentConfig`): `.coding-agent/**`, `.mcp.json` and `protectedFiles`, the
 * workspace paths of the scripts hooks and MCP servers run.
 */
export function createPathAllowance(
  globs: readonly string[],
  options: { readonly protectedFiles?: readonly string[] } = {},
): PathAllowance {
  const named = new Set(options.protectedFiles ?? []);
  const patterns = globs.flatMap((glob) => {
    const trimmed = glob.replace(/\/+$/, "");
    return [trimmed, `${trimmed}/**`];
  });
  const matches = patterns.length === 0 ? () => true : picomatch(patterns, { dot: true });
  return (relative) => {
    if (relative === "." || relative.startsWith("../")) return false;
    if (relative.split("/").some((part) => (EXCLUDED_DIRS as readonly string[]).includes(part)))
      return false;
    if (isAgentConfig(relative, named)) return false;
    return matches(relative);
  };
}

/**
 * Why a glob cannot be an `--allow-path` (Chinese), or undefined when it can: it must
 * be relative to the workspace and must not climb out of it.
 */
export function allowPathProblem(glob: string): string | undefined {
  if (glob.trim().length === 0) return "--allow-path 需要一个 glob";
  if (glob.startsWith("/") || /^[A-Za-z]:/.test(glob) || glob.includes("\\"))
    return `--allow-path 要写相对工作区的路径：${glob}`;
  if (glob.split("/").includes("..")) return `--allow-path 不能含 ..：${glob}`;
  return undefined;
}
