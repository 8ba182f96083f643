import { execFile } from "node:child_process";

/**
 * Folders the usual toolchains write while building or testing, left out of a run's
 * changes when the workspace is not a git repository (a repository says for itself, in
 * `.gitignore`): Python's bytecode and tool caches, virtual environments, Cargo's
 * `target/`. `.git/` and `node_modules/` are never part of the workspace's files at all.
 */
export const BUILD_OUTPUT_DIRS = [
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  ".nox",
  ".venv",
  "target",
] as const;

/** Keeps the files of a list that are the user's: not ignored by the workspace's repository. */
export type IgnoredFilter = (files: readonly string[]) => Promise<string[]>;

/**
 * A filter for the workspace at `root` (a real path) that drops the files its git
 * repository ignores (`.gitignore` at any depth, `.git/info/exclude`, the user's global
 * excludes), as `git check-ignore` answers: a tracked file stays, whatever a pattern says.
 * Outside a git repository, or without git, files under `BUILD_OUTPUT_DIRS` and `*.pyc`
 * are dropped instead. Paths are relative with `/`, as the workspace versioner gives them.
 */
export function createIgnoredFilter(root: string): IgnoredFilter {
  return async (files) => {
    if (files.length === 0) return [];
    const ignored = await gitIgnored(root, files);
    if (ignored !== undefined) return files.filter((file) => !ignored.has(file));
    return files.filter((file) => !isBuildOutput(file));
  };
}

/** True for a file under one of `BUILD_OUTPUT_DIRS`, or Python bytecode anywhere. */
export function isBuildOutput(file: string): boolean {
  const parts = file.split("/");
  const dirs = parts.slice(0, -1);
  return (
    dirs.some((dir) => (BUILD_OUTPUT_DIRS as readonly string[]).includes(dir)) ||
    file.endsWith(".pyc")
  );
}

/**
 * The files git ignores, or undefined when `root` is not inside a work tree (or git is
 * missing). Exit 1 means "none ignored". No inherited `GIT_*` variable may point git
 * elsewhere, and `core.fsmonitor` is off: a workspace's own `.git/config` must not run a
 * program when the run looks at its files.
 */
function gitIgnored(root: string, files: readonly string[]): Promise<Set<string> | undefined> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith("GIT_")) env[key] = value;
  Object.assign(env, { GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" });
  return new Promise((resolve) => {
    const child = execFile(
      "git",
      ["-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "check-ignore", "--stdin", "-z"],
      { cwd: root, env, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (error, stdout) => {
        const code = (error as { code?: unknown } | null)?.code;
        if (error === null || code === 1) {
          resolve(new Set(stdout.split("\0").filter((file) => file !== "")));
        } else resolve(undefined);
      },
    );
    child.stdin?.on("error", () => {});
    child.stdin?.end(`${files.join("\0")}\0`);
  });
}
