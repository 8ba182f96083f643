/**
 * Children of one reply start together, so their copies of one repository are made and
 * removed together: git's worktree bookkeeping is not safe for that ("fatal: failed to read
 * .git/worktrees/tree1/commondir" about once in twenty copies made three at once), so the
 * copies take turns at it.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createIsolatedCopy } from "../src/subagents/workspace-copy.ts";

let repo: string;
beforeEach(async () => {
  repo = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-copies-")));
  await writeFile(join(repo, "a.txt"), "a\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
  git("init", "-q");
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
  // Something uncommitted, so each copy also applies the parent's changes.
  await writeFile(join(repo, "b.txt"), "untracked\n");
});
afterEach(() => rm(repo, { recursive: true, force: true }));

it("five copies of one repository made at once, twelve times: each is made, and all are removed", async () => {
  const failures: string[] = [];
  for (let round = 0; round < 12; round += 1) {
    const made = await Promise.allSettled([1, 2, 3, 4, 5].map(() => createIsolatedCopy(repo)));
    for (const one of made) {
      if (one.status === "rejected") failures.push(String((one.reason as Error).message));
    }
    await Promise.all(made.map((one) => (one.status === "fulfilled" ? one.value.remove() : null)));
  }
  expect(failures, "同时建副本不能失败").toEqual([]);
  const worktrees = execFileSync("git", ["worktree", "list", "--porcelain"], {
    cwd: repo,
    encoding: "utf8",
  }).match(/^worktree /gm);
  expect(worktrees).toHaveLength(1);
}, 120_000);
