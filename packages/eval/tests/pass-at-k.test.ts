import { describe, expect, it } from "vitest";
import { buildReport, passAtK, passRateDrops, type TaskResult } from "../src/index.ts";

/** n choose k, by the definition: the hand computation the estimator must agree with. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let value = 1;
  for (let i = 1; i <= k; i += 1) value = (value * (n - k + i)) / i;
  return value;
}
const byHand = (n: number, c: number, k: number) => 1 - choose(n - c, k) / choose(n, k);

const row = (id: string, trial: number, passed: boolean): TaskResult => {
  const verdict = { pass: passed, detail: "" };
  return {
    id,
    trial,
    passed,
    status: "completed",
    code: "finished",
    graders: {
      tests_pass: verdict,
      diff_in_scope: verdict,
      forbidden_untouched: verdict,
      status: verdict,
    },
    durationMs: 1,
  };
};

describe("passAtK", () => {
  it.each([
    [5, 0, 1],
    [5, 2, 1],
    [5, 2, 2],
    [5, 2, 5],
    [10, 3, 4],
    [20, 1, 7],
    [5, 5, 3],
  ])("matches 1 − C(n−c, k)/C(n, k) for n=%i c=%i k=%i", (n, c, k) => {
    expect(passAtK(n, c, k)).toBeCloseTo(byHand(n, c, k), 12);
  });

  it("is the pass rate at k = 1 and 'any pass' at k = n", () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 5)).toBe(1);
    expect(passAtK(5, 0, 5)).toBe(0);
  });

  it("refuses a k larger than the trials it has", () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
  });
});

describe("buildReport with trials", () => {
  // Recorded outcomes: a passes 2 of 5, b 0 of 5, c 5 of 5.
  const outcomes: Record<string, boolean[]> = {
    a: [true, false, false, true, false],
    b: [false, false, false, false, false],
    c: [true, true, true, true, true],
  };
  const results = Object.entries(outcomes).flatMap(([id, passes]) =>
    passes.map((passed, index) => row(id, index + 1, passed)),
  );

  it("gives pass@1 and pass@k averaged over tasks, as computed by hand", () => {
    const report = buildReport({ suite: "s", results, trials: 5 });
    const expected1 = (byHand(5, 2, 1) + byHand(5, 0, 1) + byHand(5, 5, 1)) / 3;
    const expected5 = (byHand(5, 2, 5) + byHand(5, 0, 5) + byHand(5, 5, 5)) / 3;
    expect(report.passAt?.["1"]).toBeCloseTo(expected1, 12);
    expect(report.passAt?.["5"]).toBeCloseTo(expected5, 12);
    expect(report.taskPassRates?.map((task) => [task.id, task.passed, task.trials])).toEqual([
      ["a", 2, 5],
      ["b", 0, 5],
      ["c", 5, 5],
    ]);
    expect(report).toMatchObject({ passed: 7, total: 15, trials: 5 });
  });

  it("keeps the single-trial report exactly as it was: no trial fields", () => {
    const single = results
      .filter((result) => result.trial === 1)
      .map(({ trial: _t, ...rest }) => rest);
    expect(Object.keys(buildReport({ suite: "s", results: single, trials: 1 }))).toEqual([
      "suite",
      "passRate",
      "passed",
      "total",
      "tasks",
      "stops",
      "regressions",
    ]);
  });
});

describe("passRateDrops", () => {
  const baseline = [
    ...[true, true, true, true, true].map((passed) => ({ id: "steady", passed })),
    ...[true, true, true, true, true].map((passed) => ({ id: "slipping", passed })),
    { id: "single", passed: true },
  ];

  it("calls a drop of more than the tolerance a regression, and a drop of exactly it noise", () => {
    const now = [
      ...[true, true, true, true, false].map((passed) => ({ id: "steady", passed })),
      ...[true, true, true, false, false].map((passed) => ({ id: "slipping", passed })),
      ...[true, false, true, false, true].map((passed) => ({ id: "single", passed })),
      { id: "new", passed: false },
    ];
    expect(passRateDrops(baseline, now, 0.2)).toEqual([
      { id: "slipping", baseline: 1, now: 0.6 },
      { id: "single", baseline: 1, now: 0.6 },
    ]);
  });

  it("does not count 0.8 → 0.6 as more than 0.2 because of floating point", () => {
    const before = [true, true, true, true, false].map((passed) => ({ id: "t", passed }));
    const now = [true, true, true, false, false].map((passed) => ({ id: "t", passed }));
    expect(passRateDrops(before, now, 0.2)).toEqual([]);
  });
});
