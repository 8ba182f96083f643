import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";

/** One file of a task's fixture repository, carried as data (base64) so any machine can rebuild it. */
export interface FixtureFile {
  /** Relative to the fixture's root, `/` separators. */
  readonly path: string;
  readonly base64: string;
  readonly executable: boolean;
}

/** What a workspace holds: each file's path and the SHA-256 of its bytes. */
export type WorkspaceSnapshot = ReadonlyMap<string, string>;

/** `.git/` is the repository's bookkeeping, not its content; a fixture never carries it. */
const IGNORED = [".git/**", "**/.git/**"];

/** Reads every file under `dir` (dot files included, symbolic links not followed). */
export async function readFixture(dir: string): Promise<FixtureFile[]> {
  const files = await listFiles(dir);
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

/** The snapshot of a workspace on disk. */
export async function snapshotWorkspace(dir: string): Promise<WorkspaceSnapshot> {
  const files = await listFiles(dir);
  const hashes = await Promise.all(
    files.map(async (relative) => sha256(await readFile(path.join(dir, relative)))),
  );
  return new Map(files.map((relative, index) => [relative, hashes[index] ?? ""]));
}

/** Paths added, changed or removed between two snapshots, sorted. */
export function changedPaths(before: WorkspaceSnapshot, after: WorkspaceSnapshot): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((file) => before.get(file) !== after.get(file)).sort();
}

async function listFiles(dir: string): Promise<string[]> {
  const files = await glob("**", {
    cwd: dir,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: IGNORED,
  });
  return files.sort();
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
