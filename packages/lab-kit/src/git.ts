import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { toPosixPath } from "./posix-path.ts";

const execFileAsync = promisify(execFile);

/** The root of the git work tree that holds `dir`, or undefined outside a repository. */
export async function findRepoRoot(dir: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync("git", ["rev-parse", "--show-toplevel"], { cwd: dir });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

/**
 * The committed (HEAD) contents of every tracked file under `dir`, keyed by path relative
 * to `dir` with `/` separators. Undefined when `dir` is not in a repository or HEAD has no
 * file under it, so callers can fall back to the working tree and say so.
 */
export async function readCommittedTree(dir: string): Promise<Map<string, Buffer> | undefined> {
  return (await readCommittedTrees(dir, [dir])).get(dir);
}

/**
 * `readCommittedTree` for many folders at once, each keyed by the folder as given. Two git
 * processes whatever the number of folders and files: `ls-tree` lists them, one
 * `cat-file --batch` reads them all. `cwd` is any folder of the repository.
 */
export async function readCommittedTrees(
  cwd: string,
  dirs: readonly string[],
): Promise<Map<string, Map<string, Buffer> | undefined>> {
  const trees = new Map<string, Map<string, Buffer> | undefined>(
    dirs.map((dir) => [dir, undefined]),
  );
  if (dirs.length === 0) return trees;
  // Pathspecs and the paths ls-tree prints are both relative to `cwd`.
  const prefixes = dirs.map((dir) => toPosixPath(path.relative(cwd, dir)));
  let listing: string;
  try {
    const { stdout } = await execFileAsync(
      "git",
      ["ls-tree", "-r", "-z", "HEAD", "--", ...prefixes.map((prefix) => prefix || ".")],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
    );
    listing = stdout;
  } catch {
    return trees;
  }
  const entries = listing
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => {
      const tab = line.indexOf("\t");
      const [, type = "", sha = ""] = line.slice(0, tab).split(" ");
      return { type, sha, file: line.slice(tab + 1) };
    })
    .filter((entry) => entry.type === "blob" && !`/${entry.file}`.includes("/node_modules/"));
  if (entries.length === 0) return trees;
  const contents = await readBlobs(
    cwd,
    entries.map((entry) => entry.sha),
  );
  entries.forEach((entry, index) => {
    prefixes.forEach((prefix, dirIndex) => {
      if (prefix !== "" && !entry.file.startsWith(`${prefix}/`)) return;
      const dir = dirs[dirIndex] ?? "";
      const tree = trees.get(dir) ?? new Map<string, Buffer>();
      tree.set(
        prefix === "" ? entry.file : entry.file.slice(prefix.length + 1),
        contents[index] ?? Buffer.alloc(0),
      );
      trees.set(dir, tree);
    });
  });
  return trees;
}

/**
 * The contents of the blobs `shas` names, in order, read through one `git cat-file --batch`
 * process run in `cwd` (any folder of the repository).
 */
export function readBlobs(cwd: string, shas: readonly string[]): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["cat-file", "--batch"], {
      cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new Error(`git cat-file --batch exited ${code}: ${stderr.trim()}`));
        return;
      }
      try {
        resolve(parseBatch(Buffer.concat(chunks), shas));
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.on("error", reject);
    child.stdin.end(shas.map((sha) => `${sha}\n`).join(""));
  });
}

/** Splits `cat-file --batch` output (`<sha> <type> <size>\n<content>\n` per object). */
function parseBatch(output: Buffer, shas: readonly string[]): Buffer[] {
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const sha of shas) {
    const end = output.indexOf(0x0a, offset);
    const header = output.toString("utf8", offset, end === -1 ? output.length : end);
    const [name, type, size] = header.split(" ");
    if (end === -1 || name !== sha || type !== "blob" || size === undefined) {
      throw new Error(`git cat-file --batch: expected blob ${sha}, got "${header}"`);
    }
    const start = end + 1;
    blobs.push(output.subarray(start, start + Number(size)));
    offset = start + Number(size) + 1;
  }
  return blobs;
}
