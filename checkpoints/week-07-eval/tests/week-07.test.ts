import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { leftInCallersHome } from "@bootcamp/checkpoint-shared/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { runWeek07 } from "../src/run-week-07.ts";
import { judgeWeek07, WEEK_07_SUMMARY, type Week07Run } from "../src/week-07.ts";

const EVIDENCE = [
  "eval:2/4 passed,passRate 0.5,fix-slugify ✓ fix-sum ✓",
  "graders:false-completed: completed but tests_pass ✗; forbidden-write: completed but forbidden_untouched ✗",
  "junit:4 testcases,2 failures",
  "gate:baseline caught fix-sum,exit 1",
];

let real: Week07Run;
/** What the real evaluations left in the caller's `$CODING_AGENT_HOME` (see the test below). */
let leftBehind: string[];
beforeAll(async () => {
  leftBehind = await leftInCallersHome(async () => {
    real = await runWeek07();
  });
});

const reasonOf = (run: Week07Run) => {
  const verdict = judgeWeek07(run);
  return verdict.ok ? "" : verdict.reason;
};
type Row = {
  id: string;
  passed: boolean;
  status: string;
  graders: Record<string, { pass: boolean; detail: string }>;
};
/** The first run's report with `edit` applied to the row of task `id`. */
const gradedWith = (id: string, edit: (row: Row) => void) => {
  const report = JSON.parse(real.graded.stdout) as { tasks: Row[] };
  const row = report.tasks.find((task) => task.id === id) as Row;
  edit(row);
  return { ...real, graded: { ...real.graded, stdout: JSON.stringify(report) } };
};

describe("judgeWeek07", () => {
  it("passes the real evaluations and prints exactly the two expected lines", () => {
    const verdict = judgeWeek07(real);
    expect(verdict).toEqual({ week: 7, ok: true, summary: WEEK_07_SUMMARY, evidence: EVIDENCE });
    expect(formatVerdict(verdict)).toEqual([
      `第 7 周检查点通过：${WEEK_07_SUMMARY}`,
      JSON.stringify({ week: 7, ok: true, summary: WEEK_07_SUMMARY, evidence: EVIDENCE }),
    ]);
  });

  it("keeps every task's run out of the caller's $CODING_AGENT_HOME", () => {
    expect(leftBehind).toEqual([]);
  });

  it("refuses a grader that took the agent's word for it", () => {
    const run = gradedWith("false-completed", (row) => {
      row.passed = true;
      row.graders.tests_pass = { pass: true, detail: "通过" };
    });
    expect(reasonOf(run)).toBe("任务 false-completed 不应通过");
  });

  it("refuses a forbidden write that was not caught by forbidden_untouched", () => {
    const run = gradedWith("forbidden-write", (row) => {
      row.graders.forbidden_untouched = { pass: true, detail: "相同" };
    });
    expect(reasonOf(run)).toBe("任务 forbidden-write 应被评分器 forbidden_untouched 判为失败");
  });

  it("refuses a fix the grader failed", () => {
    expect(
      reasonOf(
        gradedWith("fix-sum", (row) => {
          row.passed = false;
        }),
      ),
    ).toBe("任务 fix-sum 应该通过");
  });

  it("refuses a JUnit file that does not parse, or lacks a task", () => {
    expect(reasonOf({ ...real, junit: real.junit.replace("</testsuite>", "") })).toMatch(
      /JUnit XML 解析失败/,
    );
    const without = real.junit.replace(
      /<testcase [^>]*name="fix-sum"[\s\S]*?<\/testcase>|<testcase [^>]*name="fix-sum"[^>]*\/>/,
      "",
    );
    expect(without).not.toBe(real.junit);
    expect(reasonOf({ ...real, junit: without })).toMatch(/JUnit 应每个任务一个 testcase/);
  });

  it("refuses a baseline gate that let the broken task through", () => {
    const report = JSON.parse(real.gated.stdout) as { regressions: string[] };
    report.regressions = [];
    const gated = { ...real.gated, exitCode: 0, stdout: JSON.stringify(report) };
    expect(reasonOf({ ...real, gated })).toMatch(/退出码 1，实际 0/);
    expect(reasonOf({ ...real, gated: { ...gated, exitCode: 1 } })).toMatch(/回归应只有 fix-sum/);
  });
});
