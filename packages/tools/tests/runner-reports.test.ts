import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type TestReportKind, withMachineReporter } from "../src/test-runs/plan-test-command.ts";
import { readTestReport } from "../src/test-runs/run-tests.ts";

/**
 * What real runners printed for the same small suite (two passes, a failure nested two
 * levels deep, a skip, a failure named "compares a > b"), recorded by
 * `scripts/record-runner-reports.ts` with the command `run_tests` plans for each.
 */
const FIXTURES = join(import.meta.dirname, "fixtures", "runner-reports");

interface Recorded {
  readonly stdout: string;
  readonly stderr: string;
  readonly command: string;
  readonly version: string;
}

function recorded(id: string): Recorded {
  const read = (file: string) => readFileSync(join(FIXTURES, id, file), "utf8");
  const run = JSON.parse(read("run.json")) as { command: string; version: string };
  return { stdout: read("stdout.txt"), stderr: read("stderr.txt"), ...run };
}

const NESTED = "math > add > carries the sign";
const ARROW = "math > compares a > b";

interface Case {
  readonly id: string;
  /** The test command as the user gives it, and the package's scripts. */
  readonly command: string;
  readonly scripts?: Record<string, string>;
  readonly report: TestReportKind;
  readonly counts: { passed: number; failed: number; skipped: number };
  /** Each failure's name and a piece of its message. */
  readonly failures: ReadonlyArray<readonly [string, string]>;
}

const JEST_LIKE = {
  report: "jest_json",
  counts: { passed: 2, failed: 2, skipped: 1 },
  failures: [
    [NESTED, "-3"],
    [ARROW, "one is not greater than two"],
  ],
} as const;

const MOCHA = {
  report: "mocha_summary",
  counts: { passed: 2, failed: 2, skipped: 1 },
  failures: [
    [ARROW, "one is not greater than two"],
    [NESTED, "-2 !== -3"],
  ],
} as const;

const CASES: readonly Case[] = [
  ...["vitest-1", "vitest-2", "vitest-3", "vitest-4"].map((id) => ({
    id,
    command: "vitest run",
    ...JEST_LIKE,
  })),
  {
    id: "vitest-4-npm-run",
    command: "npm run unit",
    scripts: { unit: "vitest run" },
    ...JEST_LIKE,
  },
  ...["jest-27", "jest-28", "jest-29", "jest-30"].map((id) => ({
    id,
    command: "jest",
    ...JEST_LIKE,
  })),
  { id: "jest-29-npm-test", command: "npm test", scripts: { test: "jest" }, ...JEST_LIKE },
  { id: "mocha-10", command: "mocha", ...MOCHA },
  { id: "mocha-11", command: "mocha", ...MOCHA },
  { id: "mocha-11-spec-color", command: "mocha --reporter spec --color", ...MOCHA },
  { id: "mocha-11-npm-test", command: "npm test", scripts: { test: "mocha" }, ...MOCHA },
  {
    id: "mocha-11-tap",
    command: "mocha --reporter tap",
    report: "tap",
    counts: { passed: 2, failed: 2, skipped: 1 },
    // mocha's TAP joins a test's titles with spaces: its ancestors cannot be told apart.
    failures: [
      ["math compares a > b", "one is not greater than two"],
      ["math add carries the sign", "-2 !== -3"],
    ],
  },
  {
    id: "tape-5",
    command: "tape test/*.js",
    report: "tap",
    // tape counts assertions, each under the heading of the test that made it.
    counts: { passed: 2, failed: 2, skipped: 1 },
    failures: [
      ["math > compares a > b", "actual: false"],
      ["add > carries the sign", "expected: -3"],
    ],
  },
  {
    id: "tap-21",
    command: "tap --disable-coverage",
    report: "tap",
    counts: { passed: 2, failed: 2, skipped: 1 },
    failures: [
      [`test/math.js > ${NESTED}`, "+-2"],
      [`test/math.js > ${ARROW}`, 't.ok(1 > 2, "compares a > b")'],
    ],
  },
  {
    id: "ava-6",
    command: "ava",
    report: "tap",
    counts: { passed: 1, failed: 2, skipped: 1 },
    failures: [
      ["carries the sign", "+ -3"],
      ["compares a > b", "one is not greater than two"],
    ],
  },
  {
    id: "node-test",
    command: "node --test",
    report: "node_tap",
    counts: { passed: 2, failed: 2, skipped: 1 },
    failures: [
      [NESTED, "-2 !== -3"],
      [ARROW, "one is not greater than two"],
    ],
  },
];

describe("run_tests on what real runners print", () => {
  const cases = CASES.map((test) => [test.id, test] as const);

  it.each(cases)("%s: the recording is of the command run_tests plans today", (_, test) => {
    expect(withMachineReporter(test.command, test.scripts).command).toBe(recorded(test.id).command);
  });

  it("reads node:test, vitest 1–4, jest 27–30, mocha 10–11, tape, node-tap and ava: counts, and failures named by their ancestors joined with ' > '", () => {
    for (const test of CASES) {
      const read = readTestReport(
        withMachineReporter(test.command, test.scripts),
        recorded(test.id),
      );
      expect(read, test.id).toMatchObject({ report: test.report, counts: test.counts });
      const failures = read?.counts.failures ?? [];
      expect(failures.map((failure) => failure.name).sort(), test.id).toEqual(
        test.failures.map(([name]) => name).sort(),
      );
      for (const [name, message] of test.failures) {
        const found = failures.find((failure) => failure.name === name);
        expect(found?.message, `${test.id}: ${name}`).toContain(message);
      }
    }
  });

  it.each(cases)("%s: output cut before its end is no report", (_, test) => {
    const output = recorded(test.id);
    const plan = withMachineReporter(test.command, test.scripts);
    const cut = {
      stdout: output.stdout.slice(0, Math.floor(output.stdout.length / 2)),
      stderr: "",
    };
    expect(readTestReport(plan, cut)).toBeUndefined();
  });

  it("reads mocha's coloured summary exactly as its plain one", () => {
    const coloured = recorded("mocha-11-spec-color");
    expect(coloured.stdout).toContain("\u001b[");
    const plan = withMachineReporter("mocha");
    expect(readTestReport(plan, coloured)).toEqual(readTestReport(plan, recorded("mocha-11")));
  });

  it("reads a report from a command whose runner it does not know (a script that runs mocha)", () => {
    const read = readTestReport(withMachineReporter("./run-tests.sh"), recorded("mocha-11"));
    expect(read).toMatchObject({ report: "mocha_summary", counts: { failed: 2 } });
  });
});
