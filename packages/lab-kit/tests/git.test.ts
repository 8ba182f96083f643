import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBlobs, readCommittedTree, readCommittedTrees } from "../src/git.ts";
import { commitAll } from "./learner/fixture-repo.ts";

const execFileAsync = promisify(execFile);

let root: string;
let repo: string;

// Content that would break a reader splitting the batch output on newlines or text.
const BINARY = Buffer.from([0x00, 0x0a, 0xff, 0x0a, 0x0a, 0x41]);
const FILES: Record<string, string | Buffer> = {
  "labs/01/tests/lab.test.ts": "test\n",
  "labs/01/tests/fixtures/data.bin": BINARY,
  "labs/01/tests/空 白.txt": "中文\n第二行\n",
  "labs/01/tests/empty.txt": "",
  "labs/01/tests/node_modules/dep/index.js": "installed\n",
  "labs/02/tests/lab.test.ts": "other lab\n",
};

async function git(args: readonly string[]): Promise<string> {
  return (await execFileAsync("git", [...args], { cwd: repo })).stdout;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "lab-kit-git-"));
  repo = path.join(root, "repo");
  for (const [file, content] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
    await writeFile(path.join(repo, file), content);
  }
  await mkdir(path.join(repo, "labs", "03", "tests"), { recursive: true });
  await commitAll(repo, "fixture");
  // The working tree moves on; HEAD is what must come back.
  await writeFile(path.join(repo, "labs/01/tests/lab.test.ts"), "edited\n");
}, 60_000);

afterAll(() => rm(root, { recursive: true, force: true }));

describe("readCommittedTree", () => {
  it("reads every committed file under the folder, byte for byte, keyed relative to it", async () => {
    const tree = await readCommittedTree(path.join(repo, "labs", "01", "tests"));
    expect([...(tree?.keys() ?? [])].sort()).toEqual([
      "empty.txt",
      "fixtures/data.bin",
      "lab.test.ts",
      "空 白.txt",
    ]);
    expect(tree?.get("lab.test.ts")?.toString()).toBe("test\n");
    expect(tree?.get("fixtures/data.bin")?.equals(BINARY)).toBe(true);
    expect(tree?.get("空 白.txt")?.toString()).toBe("中文\n第二行\n");
    expect(tree?.get("empty.txt")?.length).toBe(0);
  });

  it("reads only that folder, not its neighbours", async () => {
    const tree = await readCommittedTree(path.join(repo, "labs", "02"));
    expect([...(tree?.entries() ?? [])].map(([file, content]) => [file, String(content)])).toEqual([
      ["tests/lab.test.ts", "other lab\n"],
    ]);
  });

  it("is undefined for a folder with nothing committed, and outside a repository", async () => {
    expect(await readCommittedTree(path.join(repo, "labs", "03"))).toBeUndefined();
    expect(await readCommittedTree(root)).toBeUndefined();
    expect(await readCommittedTree(path.join(repo, "missing"))).toBeUndefined();
  });

  it("starts two git processes for a folder of many files, not one per file", async () => {
    const { result, calls } = await countingGitCalls(() =>
      readCommittedTree(path.join(repo, "labs", "01")),
    );
    expect(result?.size).toBe(4);
    expect(calls).toEqual(["ls-tree", "cat-file"]);
  });
});

describe("readCommittedTrees", () => {
  const lab = (id: string) => path.join(repo, "labs", id, "tests");

  it("reads each folder as readCommittedTree does, keyed by the folder as given", async () => {
    const dirs = [lab("01"), lab("02"), lab("03"), path.join(repo, "labs", "01")];
    const trees = await readCommittedTrees(repo, dirs);
    expect([...trees.keys()]).toEqual(dirs);
    for (const dir of dirs) expect(trees.get(dir)).toEqual(await readCommittedTree(dir));
    expect(trees.get(lab("03"))).toBeUndefined();
  });

  it("reads many folders with two git processes in all", async () => {
    const { result, calls } = await countingGitCalls(() =>
      readCommittedTrees(repo, [lab("01"), lab("02"), lab("03")]),
    );
    expect(result.get(lab("02"))?.get("lab.test.ts")?.toString()).toBe("other lab\n");
    expect(calls).toEqual(["ls-tree", "cat-file"]);
  });

  it("has no tree for any folder outside a repository", async () => {
    const trees = await readCommittedTrees(root, [path.join(root, "bin")]);
    expect(trees.get(path.join(root, "bin"))).toBeUndefined();
  });
});

/** Runs `action` with a `git` first on PATH that logs each command, then runs the real one. */
async function countingGitCalls<T>(
  action: () => Promise<T>,
): Promise<{ result: T; calls: string[] }> {
  const bin = path.join(root, "bin");
  const log = path.join(root, "git-calls.log");
  const real = (await execFileAsync("sh", ["-c", "command -v git"])).stdout.trim();
  await mkdir(bin, { recursive: true });
  await writeFile(log, "");
  await writeFile(
    path.join(bin, "git"),
    `#!/bin/sh\necho "$1" >> "${log}"\nexec "${real}" "$@"\n`,
    {
      mode: 0o755,
    },
  );
  const saved = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${saved ?? ""}`;
  try {
    const result = await action();
    const calls = (await readFile(log, "utf8")).split("\n").filter((line) => line !== "");
    return { result, calls };
  } finally {
    process.env.PATH = saved;
  }
}

describe("readBlobs", () => {
  it("rejects naming the object when a sha is not in the repository", async () => {
    await expect(readBlobs(repo, ["0".repeat(40)])).rejects.toThrow(/0{40}.*missing/);
  });

  it("returns the blobs in the order asked, repeats included", async () => {
    const shas = (await git(["ls-tree", "-r", "--object-only", "HEAD", "labs"])).trim().split("\n");
    const once = await readBlobs(repo, shas);
    const twice = await readBlobs(repo, [...shas].reverse().concat(shas));
    expect(twice).toEqual([...once].reverse().concat(once));
  });

  it("reads nothing for no shas", async () => {
    expect(await readBlobs(repo, [])).toEqual([]);
  });
});
