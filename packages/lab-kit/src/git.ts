import { execFile } from "node:child_process";
import path from "node:path";
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
 * file under it, so callers can fall back to the working tree and say so.
 */
export async function readCommittedTree(dir: string): Promise<Map<string, Buffer> | undefined> {
  const root = await findRepoRoot(dir);
  if (root === undefined) return undefined;
  const prefix = path.relative(root, path.resolve(dir)).split(path.sep).join("/");
  let listing: string;
  try {
    const { stdout } = await execFileAsync(
      "git",
      ["ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", prefix === "" ? "." : prefix],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    listing = stdout;
  } catch {
    return undefined;
  }
  const entries = listing
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => {
      const [meta = "", file = ""] = line.split("\t");
      return { sha: meta.split(" ")[2] ?? "", file };
    })
    .filter((entry) => entry.sha !== "" && !entry.file.includes("/node_modules/"));
  if (entries.length === 0) return undefined;
  const files = new Map<string, Buffer>();
  for (const entry of entries) {
    const { stdout } = await execFileAsync("git", ["cat-file", "blob", entry.sha], {
      cwd: root,
      encoding: "buffer",
      maxBuffer: 64 * 1024 * 1024,
    });
    const rel = prefix === "" ? entry.file : entry.file.slice(prefix.length + 1);
    files.set(rel, stdout);
  }
  return files;
}
