import { readdir, readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Pool,
  progressLine,
  runPool,
  runTask,
  runTasks,
  type TaskResult,
} from "../src/index.ts";
import { fakeRunner, scratch, task } from "./support/suite.ts";

const never = new AbortController().signal;
let tmp = "";
/** The fake agent's log folder, made outside this test's TMPDIR. */
let log = "";
let savedTmp: string | undefined;

// Each test gets its own TMPDIR: whatever workspace the harness leaves behind shows there.
beforeEach(async () => {
  savedTmp = process.env.TMPDIR;
  log = await scratch();
  tmp = await scratch();
  process.env.TMPDIR = tmp;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

async function runs(
  log: string,
): Promise<{ argv: string[]; startedAt: number; endedAt: number }[]> {
  const text = await readFile(`${log}/runs.jsonl`, "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe("runTask", () => {
  it("runs the agent with --approval auto in a fresh workspace and removes it afterwards", async () => {
    const result = await runTask(task({ id: "t" }), { runner: fakeRunner(log), signal: never });
    expect(result).toMatchObject({
      id: "t",
      passed: true,
      status: "completed",
      code: "finished",
      runId: "fake-ok",
    });
    const [run] = await runs(log);
    expect(run?.argv.slice(0, 2)).toEqual(["run", "ok"]);
    expect(run?.argv.join(" ")).toContain("--approval auto");
    expect(run?.argv.join(" ")).toContain("--test-command true");
    expect(await readdir(tmp)).toEqual([]);
  });

  it("leaves the approval to the task when its args name one", async () => {
    await runTask(task({ id: "t", args: ["--approval", "deny"] }), {
      runner: fakeRunner(log),
      signal: never,
    });
    const [run] = await runs(log);
    expect(run?.argv.filter((arg) => arg === "--approval")).toHaveLength(1);
    expect(run?.argv.slice(-2)).toEqual(["--approval", "deny"]);
  });

  it("grades the workspace, not the agent's word: a completed run whose tests fail does not pass", async () => {
    const result = await runTask(task({ id: "t", testCommand: "exit 1" }), {
      runner: fakeRunner(),
      signal: never,
    });
    expect(result).toMatchObject({ status: "completed", passed: false });
    expect(result.graders.tests_pass.pass).toBe(false);
  });

  it("sees a file the agent wrote in a forbidden path", async () => {
    const result = await runTask(
      task({
        id: "t",
        goal: "write:secret.txt",
        forbiddenPaths: ["secret.txt"],
        allowPaths: ["src"],
      }),
      { runner: fakeRunner(), signal: never },
    );
    expect(result.graders.forbidden_untouched.pass).toBe(false);
    expect(result.graders.diff_in_scope.pass).toBe(false);
  });

  it("build output is not judged against allowPaths, a user file beside it is; forbidden paths see it all", async () => {
    const build =
      "__pycache__/calc.cpython-312.pyc,src/__pycache__/a.pyc,target/debug/calc,lib/x.pyc";
    const inScope = await runTask(
      task({ id: "t", goal: `write:src/calc.py,${build}`, allowPaths: ["src"] }),
      { runner: fakeRunner(), signal: never },
    );
    expect(inScope.graders.diff_in_scope).toEqual({
      pass: true,
      detail: "改动 1 个文件，都在 allowPaths 内",
    });
    // Names that only look like build output are the user's files.
    const lookalikes = await runTask(
      task({
        id: "t",
        goal: "write:src/calc.py,target.txt,mytarget/x,src/pycache_notes.md,lib/x.pyc.bak",
        allowPaths: ["src"],
      }),
      { runner: fakeRunner(), signal: never },
    );
    expect(lookalikes.graders.diff_in_scope.detail).toBe(
      "allowPaths 之外的改动：lib/x.pyc.bak, mytarget/x, target.txt",
    );
    const forbidden = await runTask(
      task({ id: "t", goal: `write:${build}`, forbiddenPaths: ["target"], allowPaths: ["src"] }),
      { runner: fakeRunner(), signal: never },
    );
    expect(forbidden.graders.diff_in_scope.pass).toBe(true);
    expect(forbidden.graders.forbidden_untouched).toEqual({
      pass: false,
      detail: "改动了禁止的文件：target/debug/calc",
    });
  });

  it("grades with the diff it is given, which alone decides what changed", async () => {
    const seen: [string[], string[]][] = [];
    const result = await runTask(
      task({
        id: "t",
        goal: "write:secret.txt",
        forbiddenPaths: ["README.md"],
        allowPaths: ["src"],
      }),
      {
        runner: fakeRunner(),
        signal: never,
        diff: (before, after) => {
          seen.push([[...before.keys()], [...after.keys()]]);
          return ["README.md"];
        },
      },
    );
    expect(seen).toEqual([[["README.md"], ["README.md", "secret.txt"]]]);
    expect(result.graders.forbidden_untouched).toEqual({
      pass: false,
      detail: "改动了禁止的文件：README.md",
    });
    expect(result.graders.diff_in_scope.detail).toBe("allowPaths 之外的改动：README.md");
  });

  it("reports a timeout as a harness error and a run without a result as a crash", async () => {
    const slow = await runTask(task({ id: "t", goal: "hang", timeoutMs: 300 }), {
      runner: fakeRunner(),
      signal: never,
    });
    expect(slow).toMatchObject({ passed: false, status: "error", code: "timeout" });
    const crash = await runTask(task({ id: "t", goal: "crash" }), {
      runner: fakeRunner(),
      signal: never,
    });
    expect(crash).toMatchObject({ passed: false, status: "error", code: "crash" });
    expect(crash.error).toContain("boom: something broke");
    expect(await readdir(tmp)).toEqual([]);
  });
});

describe("runTasks", () => {
  it("runs at most --concurrency tasks at once and returns the results in suite order", async () => {
    const tasks = ["e", "d", "c", "b", "a"].map((id) => task({ id, goal: "wait:400" }));
    const finished: string[] = [];
    const outcome = await runTasks(tasks, {
      runner: fakeRunner(log),
      concurrency: 2,
      signal: never,
      onTaskFinished: (result, count, total) => finished.push(progressLine(result, count, total)),
    });
    expect(outcome.kind).toBe("done");
    if (outcome.kind === "done")
      expect(outcome.results.map((result) => result.id)).toEqual(["e", "d", "c", "b", "a"]);
    expect(finished).toHaveLength(5);
    expect(finished.map((line) => line.slice(0, 6))).toEqual([
      "[1/5] ",
      "[2/5] ",
      "[3/5] ",
      "[4/5] ",
      "[5/5] ",
    ]);
    const recorded = await runs(log);
    const most = Math.max(
      ...recorded.map(
        (run) =>
          recorded.filter(
            (other) => other.startedAt <= run.startedAt && other.endedAt > run.startedAt,
          ).length,
      ),
    );
    expect(most).toBe(2);
  });

  it("cancels every running task, starts no other, and leaves no workspace", async () => {
    const controller = new AbortController();
    const tasks = ["a", "b", "c", "d"].map((id) => task({ id, goal: "hang" }));
    const started = Date.now();
    setTimeout(() => controller.abort(), 500);
    const outcome = await runTasks(tasks, {
      runner: fakeRunner(log),
      concurrency: 2,
      signal: controller.signal,
    });
    expect(outcome.kind).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await readdir(tmp)).toEqual([]);
  });
});

describe("runTasks with a pool of its own", () => {
  it("schedules the tasks through the given pool and hands it the concurrency and the signal", async () => {
    const seen: { ids: string[]; concurrency: number; signal: AbortSignal }[] = [];
    const pool: Pool = (items, options) => {
      seen.push({
        ids: items.map((item) => (item as { id: string }).id),
        concurrency: options.concurrency,
        signal: options.signal,
      });
      return runPool(items, options);
    };
    const outcome = await runTasks(
      [task({ id: "a" }), task({ id: "b", goal: "status:failed/max_steps" })],
      {
        runner: fakeRunner(),
        concurrency: 3,
        signal: never,
        pool,
      },
    );
    expect(seen).toEqual([{ ids: ["a", "b"], concurrency: 3, signal: never }]);
    expect(outcome.kind === "done" && outcome.results.map((r) => [r.id, r.code])).toEqual([
      ["a", "finished"],
      ["b", "max_steps"],
    ]);
  });
});

describe("runPool", () => {
  it("keeps at most concurrency items pending and the results in the items' order", async () => {
    let pending = 0;
    let most = 0;
    const outcome = await runPool([30, 5, 20, 1], {
      concurrency: 2,
      signal: never,
      run: async (ms) => {
        pending += 1;
        most = Math.max(most, pending);
        await new Promise((resolve) => setTimeout(resolve, ms));
        pending -= 1;
        return ms * 2;
      },
      crashed: () => -1,
    });
    expect(most).toBe(2);
    expect(outcome).toEqual({ kind: "done", results: [60, 10, 40, 2] });
  });

  it("turns an item whose run throws into its crash result and runs the others", async () => {
    const outcome = await runPool(["a", "boom", "c"], {
      concurrency: 1,
      signal: never,
      run: async (item) => {
        if (item === "boom") throw new Error("no temporary folder");
        return item.toUpperCase();
      },
      crashed: (error, item) => `${item}: ${(error as Error).message}`,
    });
    expect(outcome).toEqual({ kind: "done", results: ["A", "boom: no temporary folder", "C"] });
  });
});

describe("progressLine", () => {
  it("reads [3/12] ✓ fix-slugify 4.2s", () => {
    const result = { id: "fix-slugify", passed: true, durationMs: 4240 } as TaskResult;
    expect(progressLine(result, 3, 12)).toBe("[3/12] ✓ fix-slugify 4.2s");
  });
});

describe("runTask when the workspace disappears", () => {
  it("grades what is left (nothing) instead of throwing, and the suite goes on", async () => {
    const outcome = await runTasks([task({ id: "gone", goal: "rmws" }), task({ id: "fine" })], {
      runner: fakeRunner(),
      concurrency: 1,
      signal: never,
    });
    expect(outcome.kind).toBe("done");
    if (outcome.kind !== "done") return;
    expect(outcome.results.map((result) => [result.id, result.passed])).toEqual([
      ["gone", false],
      ["fine", true],
    ]);
    expect(outcome.results[0]?.graders.tests_pass.pass).toBe(false);
    expect(outcome.results[0]?.graders.forbidden_untouched.pass).toBe(true);
  });
});
