import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  buildReport,
  findRegressions as capstoneFindRegressions,
  crashedTask,
  formatTerminalReport,
  type Grades,
  loadBaseline,
  renderJunit,
  type TaskResult,
} from "@coding-agent/eval";
import { type BaselineTask, findRegressions } from "@lab";
import { describe, expect, it } from "vitest";

const pass = { pass: true, detail: "好" };
const grades = (overrides: Partial<Grades> = {}): Grades => ({
  tests_pass: pass,
  diff_in_scope: pass,
  forbidden_untouched: pass,
  status: pass,
  ...overrides,
});

/** A task that completed and whose graders all passed. */
const passed = (id: string): TaskResult => ({
  id,
  passed: true,
  status: "completed",
  code: "finished",
  graders: grades(),
  durationMs: 1000,
});
/** A task that stopped with a failure of the agent's own. */
const failed = (id: string): TaskResult => ({
  id,
  passed: false,
  status: "failed",
  code: "tool_error",
  graders: grades({ status: { pass: false, detail: "期望 completed，实际 failed" } }),
  durationMs: 1000,
});
/** The agent said it was done, but the task's tests fail: a grader's verdict, not the agent's. */
const completedButBroken = (id: string): TaskResult => ({
  id,
  passed: false,
  status: "completed",
  code: "finished",
  graders: grades({ tests_pass: { pass: false, detail: "退出码 1：1 个测试失败" } }),
  durationMs: 1000,
});
/** The harness gave up on the task: no verdict is not a pass. */
const timedOut = (id: string): TaskResult => ({
  ...crashedTask(id, "60000 毫秒内没有结束", 60_000),
  code: "timeout",
});

const before = (entries: Record<string, boolean>): BaselineTask[] =>
  Object.entries(entries).map(([id, ok]) => ({ id, passed: ok }));

describe("findRegressions", () => {
  it("names a task that passed in the baseline and fails now", () => {
    expect(
      findRegressions(before({ a: true, b: true }), [passed("a"), failed("b")]),
      "b 在基线里通过、这次失败",
    ).toEqual(["b"]);
  });

  it("counts a timeout or a crash in the new run as failing", () => {
    expect(
      findRegressions(before({ a: true, b: true, c: true }), [
        timedOut("a"),
        crashedTask("b", "coding-agent 退出码 139", 20),
        passed("c"),
      ]),
      "超时、崩溃没有结论，没有结论就不是通过",
    ).toEqual(["a", "b"]);
  });

  it("counts a run that completed but whose tests fail", () => {
    expect(
      findRegressions(before({ a: true }), [completedButBroken("a")]),
      "Agent 说完成了，评分器说测试没过：以 passed 为准",
    ).toEqual(["a"]);
  });

  it("matches tasks by id, not by position, when the suite's order changed", () => {
    expect(
      findRegressions(before({ a: false, b: true }), [failed("b"), failed("a")]),
      "基线的第 1 个是 a、这次的第 1 个是 b：按 id 找",
    ).toEqual(["b"]);
  });

  it("lists the regressions in the order of the run, not of the baseline", () => {
    expect(
      findRegressions(before({ c: true, b: true, a: true }), [
        failed("a"),
        failed("b"),
        failed("c"),
      ]),
    ).toEqual(["a", "b", "c"]);
  });

  it("does not count a task that is new since the baseline", () => {
    expect(
      findRegressions(before({ a: true }), [failed("new"), failed("a")]),
      "new 在基线里没有：它没有退步，只是还没做好",
    ).toEqual(["a"]);
  });

  it("does not count a task that failed in the baseline too", () => {
    expect(
      findRegressions(before({ a: false, b: true }), [failed("a"), failed("b")]),
      "a 在基线里就没通过：不是这次改坏的",
    ).toEqual(["b"]);
  });

  it("ignores a task that is gone from the suite: it did not run, so it did not fail", () => {
    expect(findRegressions(before({ gone: true, a: true }), [failed("a")])).toEqual(["a"]);
  });

  it("finds nothing when every task passes, or against an empty baseline", () => {
    expect(findRegressions(before({ a: true, b: false }), [passed("a"), passed("b")])).toEqual([]);
    expect(findRegressions([], [failed("a"), timedOut("b")])).toEqual([]);
  });
});

describe("the gate in the capstone's report", () => {
  /** Yesterday's suite, and today's: reordered, one task added, one removed. */
  const yesterday = [
    passed("sum"),
    passed("parse"),
    failed("flaky"),
    passed("lint"),
    passed("gone"),
  ];
  const today = [
    passed("lint"),
    timedOut("parse"),
    failed("flaky"),
    failed("added"),
    completedButBroken("sum"),
  ];

  it("agrees with the capstone's findRegressions on a reordered suite", () => {
    const baseline = buildReport({ suite: "s", results: yesterday }).tasks;
    const report = buildReport({ suite: "s", results: today, baseline, findRegressions });
    expect(report.regressions).toEqual(capstoneFindRegressions(baseline, today));
    expect(report.regressions).toEqual(["parse", "sum"]);
  });

  it("reads a baseline the capstone wrote with --update-baseline, and its reports name the regressions", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "lab-35-"));
    try {
      // What `coding-agent eval --update-baseline` writes: the whole --json report.
      const file = path.join(dir, "results.json");
      await writeFile(file, `${JSON.stringify(buildReport({ suite: "s", results: yesterday }))}\n`);
      const loaded = await loadBaseline(file);
      if (loaded.kind !== "loaded") throw new Error(`基线读不出来：${JSON.stringify(loaded)}`);
      const report = buildReport({
        suite: "s",
        results: today,
        baseline: loaded.tasks,
        findRegressions,
      });
      expect(formatTerminalReport(report)).toContain("回归（基线中通过、这次失败）：parse, sum");
      expect(renderJunit(report)).toContain('name="parse"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
