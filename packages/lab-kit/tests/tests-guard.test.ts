import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedTestsNotice } from "../src/tests-guard.ts";

const run = promisify(execFile);
let root: string;
let labDir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "lab-kit-guard-"));
  labDir = path.join(root, "labs", "01-sample");
  await mkdir(path.join(labDir, "tests"), { recursive: true });
  await writeFile(path.join(labDir, "tests", "lab.test.ts"), "// the committed test\n");
  const git = (...args: string[]) => run("git", args, { cwd: root });
  await git("init", "-q");
  await git("add", ".");
  await git("-c", "user.name=f", "-c", "user.email=f@example.com", "commit", "-qm", "fixture");
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe("changedTestsNotice", () => {
  it("says nothing while the tests match the committed ones", async () => {
    expect(await changedTestsNotice(labDir)).toBeUndefined();
  });

  it("names the changed test file and how to restore it", async () => {
    await writeFile(path.join(labDir, "tests", "lab.test.ts"), "// weakened\n");
    const notice = await changedTestsNotice(labDir);
    expect(notice).toContain("labs/01-sample/tests/ 与提交的版本不同（已修改 lab.test.ts）");
    expect(notice).toContain("git restore --source=HEAD -- labs/01-sample/tests");
  });

  it("says nothing outside a git repository", async () => {
    const bare = await mkdtemp(path.join(os.tmpdir(), "lab-kit-guard-nogit-"));
    try {
      expect(await changedTestsNotice(bare)).toBeUndefined();
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });
});
