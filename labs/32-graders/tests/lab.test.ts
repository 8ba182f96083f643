import { appendFile, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  gradeForbiddenUntouched as capstoneForbidden,
  type EvalTask,
  readFixture,
  runTask,
  snapshotFixture,
  snapshotWorkspace,
  writeFixture,
} from "@coding-agent/eval";
import { changedPaths, gradeForbiddenUntouched, type Snapshot } from "@lab";
import { afterEach, describe, expect, it } from "vitest";

const snap = (entries: Record<string, string>): Snapshot => new Map(Object.entries(entries));
const fixture = snap({ "src/sum.js": "h1", "test/sum.test.js": "h2", "README.md": "h3" });

describe("changedPaths", () => {
  it("finds nothing when the workspace is as it was", () => {
    expect(
      changedPaths(
        fixture,
        snap({ "README.md": "h3", "src/sum.js": "h1", "test/sum.test.js": "h2" }),
      ),
    ).toEqual([]);
  });

  it("finds a file whose bytes changed", () => {
    expect(
      changedPaths(fixture, snap({ ...Object.fromEntries(fixture), "src/sum.js": "h9" })),
    ).toEqual(["src/sum.js"]);
  });

  it("finds a file the agent added", () => {
    expect(
      changedPaths(fixture, snap({ ...Object.fromEntries(fixture), "test/skip.js": "h4" })),
      "运行后才有的文件是新增",
    ).toEqual(["test/skip.js"]);
  });

  it("finds a file the agent deleted", () => {
    const { "test/sum.test.js": _, ...rest } = Object.fromEntries(fixture);
    expect(changedPaths(fixture, snap(rest)), "删掉的测试文件也是改动").toEqual([
      "test/sum.test.js",
    ]);
  });

  it("gives every kind of change at once, sorted", () => {
    const after = snap({ "src/sum.js": "h9", "README.md": "h3", "a.txt": "h5" });
    expect(changedPaths(fixture, after)).toEqual(["a.txt", "src/sum.js", "test/sum.test.js"]);
  });
});

describe("gradeForbiddenUntouched", () => {
  it("passes when no forbidden path changed", () => {
    expect(gradeForbiddenUntouched(["test/**"], ["src/sum.js"])).toEqual({
      pass: true,
      detail: "forbiddenPaths 里的文件与夹具逐字节相同",
    });
  });

  it("fails naming every changed path a glob covers", () => {
    expect(
      gradeForbiddenUntouched(["test/**", ".env"], ["src/sum.js", "test/sum.test.js", ".env"]),
    ).toEqual({
      pass: false,
      detail: "改动了禁止的文件：test/sum.test.js, .env",
    });
  });

  it("matches a folder glob against the files below it", () => {
    const verdict = gradeForbiddenUntouched(["test"], ["test/unit/sum.test.js"]);
    expect(verdict.pass, "test 管着 test/ 下面的一切").toBe(false);
  });

  it("passes when there is no forbiddenPaths", () => {
    expect(gradeForbiddenUntouched([], ["test/sum.test.js"])).toEqual({
      pass: true,
      detail: "没有 forbiddenPaths",
    });
  });
});

describe("grading a real run", () => {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  async function scratch(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), "lab-32-"));
    folders.push(dir);
    return dir;
  }
  /** A fixture: a wrong sum and its test, as a task's repo/ holds them. */
  async function fixtureTask(): Promise<EvalTask> {
    const repo = await scratch();
    await writeFile(path.join(repo, "sum.js"), "export const sum = (a, b) => a - b;\n");
    await writeFile(path.join(repo, "sum.test.js"), "// 测试\n");
    await writeFile(path.join(repo, "README.md"), "# sum\n");
    return {
      id: "fix-sum",
      goal: "修好 sum",
      testCommand: "true",
      allowPaths: ["sum.js"],
      forbiddenPaths: ["sum.test.js", "README.md"],
      args: [],
      expectStatus: "completed",
      files: await readFixture(repo),
    };
  }
  /**
   * An agent that never uses an edit tool: with plain fs calls it deletes the test, adds a
   * newline to the README, leaves sum.js as it was, and says it completed.
   */
  const shellAgent = {
    command: process.execPath,
    args: [
      "-e",
      `const fs = require("node:fs"), path = require("node:path");
       const ws = process.argv[process.argv.indexOf("--workspace") + 1];
       fs.rmSync(path.join(ws, "sum.test.js"));
       fs.appendFileSync(path.join(ws, "README.md"), "\\n");
       process.stdout.write(JSON.stringify({ status: "completed", code: "finished", runId: "shell" }));`,
    ],
  };

  it("counts a deleted file and a file whose only change is a trailing newline", async () => {
    const task = await fixtureTask();
    const workspace = path.join(await scratch(), "ws");
    await writeFixture(task.files, workspace);
    await unlink(path.join(workspace, "sum.test.js"));
    await appendFile(path.join(workspace, "README.md"), "\n");
    const changed = changedPaths(snapshotFixture(task.files), await snapshotWorkspace(workspace));
    expect(changed, "删除和只多了一个换行都是改动").toEqual(["README.md", "sum.test.js"]);
  });

  it("fails a run that said completed but deleted a forbidden test without an edit tool", async () => {
    const result = await runTask(await fixtureTask(), {
      runner: shellAgent,
      signal: new AbortController().signal,
      diff: changedPaths,
    });
    expect(result.status, "Agent 自己说完成了").toBe("completed");
    expect(result.graders.forbidden_untouched, "评分器看工作区，不听 Agent 说").toEqual({
      pass: false,
      detail: "改动了禁止的文件：README.md, sum.test.js",
    });
    expect(result.graders.diff_in_scope.detail).toBe(
      "allowPaths 之外的改动：README.md, sum.test.js",
    );
    expect(result.passed).toBe(false);
  });

  it("agrees with the capstone's forbidden_untouched on the same changes", async () => {
    const task = await fixtureTask();
    const workspace = path.join(await scratch(), "ws");
    await writeFixture(task.files, workspace);
    await writeFile(path.join(workspace, "sum.js"), "export const sum = (a, b) => a + b;\n");
    const before = snapshotFixture(task.files);
    for (const forbiddenPaths of [["sum.js"], ["README.md"], ["*.js"], [], ["lib"]]) {
      const changed = changedPaths(before, await snapshotWorkspace(workspace));
      expect(
        gradeForbiddenUntouched(forbiddenPaths, changed),
        JSON.stringify(forbiddenPaths),
      ).toEqual(capstoneForbidden({ forbiddenPaths }, changed));
    }
    expect(changedPaths(before, await snapshotWorkspace(workspace))).toEqual(["sum.js"]);
  });
});
