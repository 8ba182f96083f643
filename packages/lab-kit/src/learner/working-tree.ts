import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { glob } from "tinyglobby";
import { toPosixPath } from "../posix-path.ts";

const execFileAsync = promisify(execFile);

/**
 * Folders that are never a learner's work: installed or generated, and lab-kit's own
 * copies beside a starter (`.lab-kit/pristine`, …).
 */
const GENERATED = ["node_modules", ".turbo", "dist", "coverage", ".lab-kit"].map(
  (name) => `**/${name}/**`,
);

/**
 * Every file under `dir` (relative, `/` separators, dot files included), skipping installed
 * and generated folders. Symbolic links are neither listed nor followed, so nothing a link
 * points at outside `dir` is ever reported, backed up or removed. A missing `dir` has no files.
 */
export async function listFiles(dir: string): Promise<string[]> {
  const files = await glob("**", {
    cwd: dir,
    dot: true,
    ignore: GENERATED,
    followSymbolicLinks: false,
    expandDirectories: false,
  });
  return files.sort();
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

/**
 * Compares `dir` with its committed tree (`readCommittedTree(s)`; undefined: nothing under
 * `dir` is committed). Every tracked file is checked for changes and removal; new files
 * are looked for only under `scanForAdded` (sub-folders of `dir`, `""` for all of it), so
 * ignored files elsewhere (build logs, caches) do not count as changes.
 */
export async function compareWithTree(
  dir: string,
  committed: ReadonlyMap<string, Buffer> | undefined,
  scanForAdded: readonly string[] = [""],
): Promise<TreeComparison> {
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
  const relative = dirs.map((dir) => toPosixPath(path.relative(repoRoot, dir)));
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
