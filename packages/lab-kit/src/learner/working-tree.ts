import { execFile } from "node:child_process";
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { readCommittedTree } from "../git.ts";

const execFileAsync = promisify(execFile);

/** Folders that are never a learner's work: installed or generated. */
const GENERATED = new Set(["node_modules", ".turbo", "dist", "coverage"]);

/**
 * Every file under `dir` (relative, `/` separators), skipping installed and generated
 * folders. A missing `dir` has no files.
 */
export async function listFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(current: string, prefix: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (GENERATED.has(entry.name)) continue;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) await walk(path.join(current, entry.name), rel);
      else if (entry.isFile() || entry.isSymbolicLink()) found.push(rel);
    }
  }
  await walk(dir, "");
  return found.sort();
}

/** How a folder differs from its committed (HEAD) version. */
export type TreeComparison =
  | {
      readonly state: "compared";
      readonly committed: ReadonlyMap<string, Buffer>;
      /** Tracked files whose content differs from HEAD. */
      readonly modified: readonly string[];
      /** Files not in HEAD (only under the scanned sub-folders). */
      readonly added: readonly string[];
      /** Tracked files that are gone from the working tree. */
      readonly removed: readonly string[];
    }
  /** Nothing under the folder is committed, or there is no repository. */
  | { readonly state: "uncommitted" };

// Line endings may be converted on checkout (core.autocrlf); that is not a change.
function sameContent(a: Buffer, b: Buffer): boolean {
  if (a.equals(b)) return true;
  const normalize = (buffer: Buffer) => buffer.toString("utf8").replace(/\r\n/g, "\n");
  return normalize(a) === normalize(b);
}

/** True when a comparison found no difference at all. */
export function isUnchanged(comparison: TreeComparison): boolean {
  return (
    comparison.state === "compared" &&
    comparison.modified.length === 0 &&
    comparison.added.length === 0 &&
    comparison.removed.length === 0
  );
}

/**
 * Compares `dir` with HEAD. Every tracked file is checked for changes and removal; new
 * files are looked for only under `scanForAdded` (sub-folders of `dir`, `""` for all of
 * it), so ignored files elsewhere (build logs, caches) do not count as changes.
 */
export async function compareWithCommitted(
  dir: string,
  scanForAdded: readonly string[] = [""],
): Promise<TreeComparison> {
  const committed = await readCommittedTree(dir);
  if (committed === undefined) return { state: "uncommitted" };
  const modified: string[] = [];
  const removed: string[] = [];
  await Promise.all(
    [...committed].map(async ([file, content]) => {
      let current: Buffer;
      try {
        current = await readFile(path.join(dir, file));
      } catch {
        removed.push(file);
        return;
      }
      if (!sameContent(current, content)) modified.push(file);
    }),
  );
  const added: string[] = [];
  for (const sub of scanForAdded) {
    for (const file of await listFiles(path.join(dir, sub))) {
      const rel = sub === "" ? file : `${sub}/${file}`;
      if (!committed.has(rel)) added.push(rel);
    }
  }
  return {
    state: "compared",
    committed,
    modified: modified.sort(),
    added: added.sort(),
    removed: removed.sort(),
  };
}

/**
 * For each folder, whether `git status` sees any change in it against HEAD: staged,
 * unstaged or untracked (ignored files excluded). One git call for all folders, so the
 * progress table stays fast. Undefined outside a repository.
 */
export async function foldersWithChanges(
  repoRoot: string,
  dirs: readonly string[],
): Promise<Map<string, boolean> | undefined> {
  if (dirs.length === 0) return new Map();
  const relative = dirs.map((dir) => path.relative(repoRoot, dir).split(path.sep).join("/"));
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync(
      "git",
      ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...relative],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
    ));
  } catch {
    return undefined;
  }
  // Entries are `XY path`; a rename adds the old path as a separate NUL-ended field.
  const changed = stdout
    .split("\0")
    .filter((entry) => entry.length > 3 && entry[2] === " ")
    .map((entry) => entry.slice(3));
  return new Map(
    dirs.map((dir, index) => {
      const prefix = `${relative[index]}/`;
      return [dir, changed.some((file) => file.startsWith(prefix))];
    }),
  );
}
