import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { EXCLUDED_DIRS } from "./fs-read.ts";

/**
 * The workspace at one moment: a hash per file (relative `/` path → sha256 of its bytes,
 * or of its link target for a symlink, which is never followed) and one `version` over
 * them all. Two states with the same files and bytes have the same version, whoever
 * changed them (an edit tool, `run_command`, a process behind the run's back).
 */
export interface WorkspaceState {
  readonly version: string;
  readonly files: ReadonlyMap<string, string>;
}

/** Takes states of one workspace, re-reading only files whose metadata changed. */
export interface WorkspaceVersioner {
  snapshot(): Promise<WorkspaceState>;
}

/** What identifies a file's content without reading it: any write changes `ctime`. */
interface StatKey {
  readonly key: string;
  readonly hash: string;
}

/**
 * A versioner of the workspace rooted at `root` (a real path). `.git/` and
 * `node_modules/` are left out at any depth, as the read tools leave them out. A file
 * is read again only when its size, inode, `mtime` or `ctime` changed since the last
 * snapshot; `ctime` cannot be set back by a program, so `touch -d` hides nothing.
 */
export function createWorkspaceVersioner(root: string): WorkspaceVersioner {
  let known = new Map<string, StatKey>();
  return {
    async snapshot() {
      const next = new Map<string, StatKey>();
      await walk(root, "", known, next);
      known = next;
      const files = new Map([...next].map(([file, entry]) => [file, entry.hash]));
      return { version: versionOf(files), files };
    },
  };
}

async function walk(
  root: string,
  relative: string,
  known: ReadonlyMap<string, StatKey>,
  next: Map<string, StatKey>,
): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(path.join(root, relative), { withFileTypes: true });
  } catch (error) {
    // A folder removed or made unreadable while it is walked is simply not there.
    if (isMissing(error)) return;
    throw error;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const file = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!(EXCLUDED_DIRS as readonly string[]).includes(entry.name)) {
        await walk(root, file, known, next);
      }
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      const hashed = await hashEntry(path.join(root, file), known.get(file));
      if (hashed !== undefined) next.set(file, hashed);
    }
  }
}

async function hashEntry(absolute: string, before: StatKey | undefined) {
  try {
    const stats = await lstat(absolute, { bigint: true });
    const key = `${stats.mode}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    if (before !== undefined && before.key === key) return before;
    const hash = createHash("sha256");
    if (stats.isSymbolicLink()) hash.update(`symlink:${await readlink(absolute)}`);
    else hash.update(await readFile(absolute));
    return { key, hash: hash.digest("hex") };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** One short id for a set of file hashes (`sha256:` and 16 hex digits). */
export function versionOf(files: ReadonlyMap<string, string>): string {
  const hash = createHash("sha256");
  for (const [file, digest] of files) hash.update(`${file}\0${digest}\n`);
  return `sha256:${hash.digest("hex").slice(0, 16)}`;
}

/** Files added, removed or changed from `before` to `after`, sorted. */
export function changedFiles(before: WorkspaceState, after: WorkspaceState): string[] {
  const changed = new Set<string>();
  for (const [file, digest] of after.files) {
    if (before.files.get(file) !== digest) changed.add(file);
  }
  for (const file of before.files.keys()) if (!after.files.has(file)) changed.add(file);
  return [...changed].sort();
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
