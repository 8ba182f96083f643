import { describe, expect, it } from "vitest";
import type { Mutation } from "../src/manifest.ts";
import type { TargetReport, TestOutcome } from "../src/run/targets.ts";
import { checkGate } from "../src/verify/evaluate.ts";

const CYCLE = "judge > finds cycles of three calls";
const NEWS = "judge > lets a poll through whose output changed";

const failedBy = (name: string): TestOutcome => ({
  name,
  file: "tests/lab.test.ts",
  state: "failed",
  failure: { kind: "assertion", message: "AssertionError: expected false to be true" },
});

// The mutant fails the cycle test first (declared first), then the test its mistake is about.
const report: TargetReport = {
  label: "24:gate",
  loadErrors: [],
  tests: [failedBy(CYCLE), failedBy(NEWS)],
};
const mutation = (breaks: string[]): Mutation => ({
  name: "no-news-check",
  description: "不看两次之间有没有新观察",
  file: "src/judge.ts",
  find: "a",
  replace: "b",
  breaks,
});
const known = new Set([CYCLE, NEWS]);

describe("checkGate for graded hints", () => {
  it("fails a gate whose mistake first fails a test it does not declare: the hint could not name it", () => {
    const result = checkGate(mutation([NEWS]), report, known, undefined);
    expect(result.ok).toBe(false);
    expect(result.text).toContain(`第一个失败的测试是 "${CYCLE}"，它不在 breaks 里`);
  });

  it("passes once the gate declares the test a learner's hint follows", () => {
    const result = checkGate(mutation([CYCLE, NEWS]), report, known, undefined);
    expect(result.ok).toBe(true);
  });
});
