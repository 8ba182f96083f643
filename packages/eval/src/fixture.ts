import { createHash } from "node:crypto";
import { chmod, mkdir, readdir, readFile, readlink, stat, writeFile } from "node:fs/promises";
import path from "node:path";

/** One file of a task's fixture repository, carried as data (base64) so any machine can rebuild it. */
export interface FixtureFile {
  /** Relative to the fixture's root, `/` separators. */
  readonly path: string;
  readonly base64: string;
  readonly executable: boolean;
}

/**
 * What a workspace holds: each entry's path and a fingerprint — the SHA-256 of a file's
 * bytes, a symbolic link's target (never followed), or the kind of anything else (a FIFO is
 * never opened, so an agent cannot hang the grader with one).
 */
export type WorkspaceSnapshot = ReadonlyMap<string, string>;

/** `.git/` is the repository's bookkeeping, not its content; a fixture never carries it. */
const IGNORED_DIR = ".git";

/** Reads every regular file under `dir` (dot files included; links and special files left out). */
export async function readFixture(dir: string): Promise<FixtureFile[]> {
  const files = (await listEntries(dir))
    .filter((entry) => entry.kind === "file")
    .map((entry) => entry.path);
  return Promise.all(
    files.map(async (relative) => {
      const absolute = path.join(dir, relative);
      const [bytes, info] = await Promise.all([readFile(absolute), stat(absolute)]);
      return {
        path: relative,
        base64: bytes.toString("base64"),
        executable: (info.mode & 0o111) !== 0,
      };
    }),
  );
}

/** Writes a fixture's files into `dir` (which it creates). */
export async function writeFixture(files: readonly FixtureFile[], dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const file of files) {
    const absolute = path.join(dir, file.path);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, Buffer.from(file.base64, "base64"));
    if (file.executable) await chmod(absolute, 0o755);
  }
}

/** The snapshot of a fixture as the task starts from it. */
export function snapshotFixture(files: readonly FixtureFile[]): WorkspaceSnapshot {
  return new Map(files.map((file) => [file.path, sha256(Buffer.from(file.base64, "base64"))]));
}

/** The snapshot of a workspace on disk; a missing folder is an empty workspace. */
export async function snapshotWorkspace(dir: string): Promise<WorkspaceSnapshot> {
  const entries = await listEntries(dir);
  const prints = await Promise.all(
    entries.map(async (entry) => {
      const absolute = path.join(dir, entry.path);
      if (entry.kind === "file") return sha256(await readFile(absolute));
      if (entry.kind === "symlink") return `symlink:${await readlink(absolute)}`;
      return entry.kind;
    }),
  );
  return new Map(entries.map((entry, index) => [entry.path, prints[index] ?? ""]));
}

/** Paths added, changed or removed between two snapshots, sorted. */
export function changedPaths(before: WorkspaceSnapshot, after: WorkspaceSnapshot): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((file) => before.get(file) !== after.get(file)).sort();
}

interface Entry {
  readonly path: string;
  readonly kind: "file" | "symlink" | "special";
}

/** Every entry under `dir` but folders and `.git/`, sorted; links are listed, not followed. */
async function listEntries(dir: string): Promise<Entry[]> {
  let dirents: import("node:fs").Dirent[];
  try {
    dirents = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return dirents
    .filter((dirent) => !dirent.isDirectory())
    .map((dirent) => ({
      path: path.relative(dir, path.join(dirent.parentPath, dirent.name)).split(path.sep).join("/"),
      kind: dirent.isFile()
        ? ("file" as const)
        : dirent.isSymbolicLink()
          ? ("symlink" as const)
          : ("special" as const),
    }))
    .filter((entry) => !entry.path.split("/").includes(IGNORED_DIR))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
