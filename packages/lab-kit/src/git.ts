import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";

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
 * file under it, so callers can fall back to the working tree and say so. Two git processes
 * whatever the number of files: `ls-tree` lists them, one `cat-file --batch` reads them all.
 */
export async function readCommittedTree(dir: string): Promise<Map<string, Buffer> | undefined> {
  let listing: string;
  try {
    // Run inside `dir`, ls-tree lists that folder only, with paths relative to it.
    const { stdout } = await execFileAsync("git", ["ls-tree", "-r", "-z", "HEAD"], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    });
    listing = stdout;
  } catch {
    return undefined;
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
  if (entries.length === 0) return undefined;
  const contents = await readBlobs(
    dir,
    entries.map((entry) => entry.sha),
  );
  return new Map(entries.map((entry, index) => [entry.file, contents[index] ?? Buffer.alloc(0)]));
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
