import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { observationBudget, observedLength } from "../src/observation-budget.ts";
import { parseMochaSummary } from "../src/test-runs/mocha-report.ts";
import { withMachineReporter } from "../src/test-runs/plan-test-command.ts";
import { type RunTestsOptions, readPackageTestScript } from "../src/test-runs/run-tests.ts";
import { parseTap } from "../src/test-runs/tap-report.ts";
import { parseJestLikeJson, parseNodeTap } from "../src/test-runs/test-report.ts";
import { bwrapForTests, requireBwrap } from "./support/bwrap.ts";
import { runTestsIn } from "./support/run-tests.ts";

// Real test runners (vitest among them) on a shared machine: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let dir: string;

// Temp folders on a loaded machine: a hook timeout only turns a hang into a failure.
const HOOK_HANG_GUARD = 60_000;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-run-tests-")));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
}, HOOK_HANG_GUARD);
afterEach(() => rm(dir, { recursive: true, force: true }), HOOK_HANG_GUARD);

/** A `node:test` file with passing, failing, skipped, todo, suite and subtest cases. */
const MIXED_TESTS = `
import test, { describe, it } from "node:test";
import assert from "node:assert/strict";
test("adds", () => { assert.equal(1 + 1, 3); });
test("passes", () => {});
test.skip("is skipped", () => {});
test.todo("is todo");
describe("suite", () => {
  it("fails inside", () => { throw new Error("boom\\nsecond line"); });
  it("passes inside", () => {});
});
test("parent", async (t) => { await t.test("child", () => { assert.ok(false, "child's 'quoted' msg"); }); });
`;

function runTests(
  testCommand: string | undefined,
  timeoutMs?: number,
  sandbox: RunTestsOptions["sandbox"] = { kind: "none" },
) {
  const run = runTestsIn(dir, { sandbox, ...(testCommand === undefined ? {} : { testCommand }) });
  return run(timeoutMs === undefined ? {} : { timeoutMs });
}

describe("run_tests", HANG_GUARD, () => {
  it("reads node --test's TAP: counts as the runner gives them, every failure named with its ancestors", async () => {
    await writeFile(join(dir, "mixed.test.js"), MIXED_TESTS);
    const result = await runTests("node --test");
    expect(result).toMatchObject({
      passed: 2,
      failed: 4,
      skipped: 2,
      exitCode: 1,
      report: "node_tap",
      command: "node --test --test-reporter=tap",
    });
    if (!("failures" in result)) throw new Error("expected a report");
    expect(result.failures.map((f) => f.name)).toEqual([
      "adds",
      "suite > fails inside",
      "parent > child",
      "parent",
    ]);
    expect(result.failures[0]?.message).toContain("2 !== 3");
    expect(result.failures[1]?.message).toBe("boom\nsecond line");
    expect(result.failures[2]?.message).toBe("child's 'quoted' msg");
  });

  it("reads node's TAP with the reader it is given, and falls back to the exit code when that reader finds no report", async () => {
    await writeFile(join(dir, "mixed.test.js"), MIXED_TESTS);
    const seen: string[] = [];
    const counts = { passed: 7, failed: 0, skipped: 0, failures: [] };
    const withReader = (found: typeof counts | undefined) =>
      runTestsIn(dir, {
        testCommand: "node --test",
        readNodeTap: (output) => {
          seen.push(output);
          return found;
        },
      })({});
    expect(await withReader(counts)).toMatchObject({ ...counts, exitCode: 1, report: "node_tap" });
    expect(seen[0]).toContain("# Subtest: adds");
    expect(await withReader(undefined)).toMatchObject({
      passed: null,
      report: "exit_code",
      exitCode: 1,
      note: expect.stringContaining("退出码"),
    });
  });

  it("reports an all-green run with exit code 0", async () => {
    await writeFile(
      join(dir, "ok.test.js"),
      'import test from "node:test";\ntest("fine", () => {});\n',
    );
    expect(await runTests("node --test")).toEqual({
      passed: 1,
      failed: 0,
      skipped: 0,
      failures: [],
      exitCode: 0,
      report: "node_tap",
      command: "node --test --test-reporter=tap",
    });
  });

  it("reads vitest's JSON report", async () => {
    await writeFile(
      join(dir, "v.test.js"),
      'import { it, expect } from "vitest";\nit("one", () => expect(1).toBe(2));\nit("two", () => {});\nit.skip("three", () => {});\n',
    );
    const vitest = join(import.meta.dirname, "..", "node_modules", ".bin", "vitest");
    const result = await runTests(`${vitest} run`);
    expect(result).toMatchObject({
      passed: 1,
      failed: 1,
      skipped: 1,
      exitCode: 1,
      report: "jest_json",
      failures: [{ name: "one", message: expect.stringContaining("expected 1 to be 2") }],
    });
  });

  it("says so when the command has no report it can read, and returns the exit code and the output's end", async () => {
    const result = await runTests("echo checking; exit 3");
    expect(result).toEqual({
      passed: null,
      failed: null,
      skipped: null,
      failures: [],
      exitCode: 3,
      report: "exit_code",
      command: "echo checking; exit 3",
      note: expect.stringContaining("只能看退出码"),
      output: "checking",
    });
  });

  it("names the runner it recognised when the reporter the command chose cannot be read, keeping the output's end", async () => {
    await writeFile(
      join(dir, "ok.test.js"),
      'import test from "node:test";\ntest("fine", () => {});\n',
    );
    const result = await runTests("node --test --test-reporter=spec");
    expect(result).toMatchObject({
      passed: null,
      report: "exit_code",
      exitCode: 0,
      note: expect.stringContaining("认出了 node"),
      output: expect.stringContaining("fine"),
    });
  });

  it("turns a hanging test command into a timeout error, its processes killed", async () => {
    await writeFile(
      join(dir, "hang.test.js"),
      'import test from "node:test";\ntest("hangs", () => new Promise(() => setInterval(() => {}, 1000)));\n',
    );
    const result = await runTests("node --test", 1_500);
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
  });

  it("runs the tests inside bubblewrap when it is the sandbox: they read the workspace, cannot write outside it", async (context) => {
    const bwrap = requireBwrap(await bwrapForTests(dir), context);
    const outside = join("/var/tmp", `run-tests-escape-${process.pid}-${Date.now()}`);
    await writeFile(
      join(dir, "sandbox.test.js"),
      [
        'import test from "node:test";',
        'import assert from "node:assert/strict";',
        'import { readFileSync, writeFileSync } from "node:fs";',
        'test("reads the workspace", () => { assert.match(readFileSync("package.json", "utf8"), /module/); });',
        `test("cannot write outside", () => { assert.throws(() => writeFileSync(${JSON.stringify(outside)}, "x")); });`,
      ].join("\n"),
    );
    const result = await runTests("node --test", undefined, { kind: "bwrap", bwrap });
    expect(result).toMatchObject({ passed: 2, failed: 0, exitCode: 0, report: "node_tap" });
    expect(existsSync(outside)).toBe(false);
  });

  it("reads mocha's summary through npm test: counts, and failures named by their suites with ' > '", async () => {
    // The workspace's own mocha, found by name as npm test finds it.
    await symlink(join(import.meta.dirname, "..", "node_modules"), join(dir, "node_modules"));
    await writeFile(join(dir, "package.json"), JSON.stringify({ scripts: { test: "mocha" } }));
    await mkdir(join(dir, "test"));
    await writeFile(
      join(dir, "test", "math.spec.cjs"),
      [
        'const assert = require("node:assert");',
        'describe("math", () => {',
        '  describe("a > b", () => { it("compares", () => assert.ok(1 > 2, "one is not greater")); });',
        '  it("adds", () => assert.strictEqual(1 + 1, 2));',
        '  it.skip("later", () => {});',
        "});",
      ].join("\n"),
    );
    await writeFile(join(dir, ".mocharc.json"), JSON.stringify({ spec: "test/*.spec.cjs" }));
    const result = await runTests("npm test");
    expect(result).toMatchObject({
      passed: 1,
      failed: 1,
      skipped: 1,
      exitCode: 1,
      report: "mocha_summary",
      command: "npm test",
      failures: [
        { name: "math > a > b > compares", message: expect.stringContaining("one is not greater") },
      ],
    });
  });

  it("fits many failures to the observation budget: the first listed, the rest counted, counts whole", async () => {
    const tests = Array.from(
      { length: 60 },
      (_, i) =>
        `test("case ${i}", () => { throw new Error("${"long reason ".repeat(40)}${i}"); });`,
    );
    await writeFile(
      join(dir, "many.test.js"),
      `import test from "node:test";\n${tests.join("\n")}\n`,
    );
    const run = runTestsIn(dir, {
      testCommand: "node --test",
      budget: observationBudget(3_000),
    });
    const result = await run({});
    if (!("failures" in result)) throw new Error("expected a report");
    expect(observedLength(result)).toBeLessThanOrEqual(3_000);
    expect(result).toMatchObject({
      passed: 0,
      failed: 60,
      note: expect.stringContaining("run_command"),
    });
    expect(result.failures.length).toBeGreaterThan(0);
    expect(result.failures.length + (result.omittedFailures ?? 0)).toBe(60);
    expect(result.failures[0]?.name).toBe("case 0");
  });

  it("keeps the whole output of a run cut to the budget, redacted, and names its artifact", async () => {
    const secret = "ghp_R3alLookingTokenValue1234567890abcd";
    const tests = Array.from(
      { length: 60 },
      (_, i) =>
        `test("case ${i}", () => { throw new Error("${"long reason ".repeat(40)}${i}${i === 30 ? ` ${secret}` : ""}"); });`,
    );
    await writeFile(
      join(dir, "many.test.js"),
      `import test from "node:test";\n${tests.join("\n")}\n`,
    );
    const kept: string[] = [];
    const redact = (text: string) => text.replaceAll(secret, "[REDACTED:github-token]");
    const run = runTestsIn(dir, {
      testCommand: "node --test",
      budget: observationBudget(3_000, redact),
      keepOutput: async (text, tool) => {
        kept.push(`${tool}:${text}`);
        return `run_tests-${kept.length}`;
      },
    });
    const result = await run({});
    if (!("failures" in result)) throw new Error("expected a report");
    expect(observedLength(result, redact)).toBeLessThanOrEqual(3_000);
    expect(result).toMatchObject({
      failed: 60,
      artifact: "run_tests-1",
      note: expect.stringContaining('read_artifact {"id":"run_tests-1"'),
    });
    expect(kept).toHaveLength(1);
    expect(kept[0]?.startsWith("run_tests:")).toBe(true);
    // Every failure is in the artifact, the ones the result left out too; the secret is not.
    for (let i = 0; i < 60; i++) expect(kept[0]).toContain(`case ${i}`);
    expect(kept[0]).toContain("[REDACTED:github-token]");
    expect(kept[0]).not.toContain(secret);
  });

  it("keeps the output of an unreadable runner once more than its end is shown; a short one stores nothing", async () => {
    const kept: string[] = [];
    const make = (testCommand: string) =>
      runTestsIn(dir, {
        testCommand,
        keepOutput: async (text) => {
          kept.push(text);
          return "whole";
        },
      });
    const short = await make("echo checked")({});
    expect(short).toMatchObject({ report: "exit_code", passed: null });
    expect(short).not.toHaveProperty("artifact");
    expect(kept).toEqual([]);
    const long = await make(`node -e "for (let i = 0; i < 2000; i++) console.log('row ' + i)"`)({});
    expect(long).toMatchObject({ report: "exit_code", artifact: "whole" });
    expect(kept[0]).toContain("row 0\n");
    expect(kept[0]).toContain("row 1999");
  });

  it("answers no_test_command when there is no command to run", async () => {
    expect(await runTests(undefined)).toMatchObject({
      ok: false,
      error: { code: "no_test_command" },
    });
    expect(await runTests("  ")).toMatchObject({ ok: false, error: { code: "no_test_command" } });
  });
});

describe("readPackageTestScript", () => {
  it("reads scripts.test, and nothing from a missing or broken package.json", async () => {
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ scripts: { test: "node --test" } }),
    );
    expect(await readPackageTestScript(dir)).toBe("node --test");
    await writeFile(join(dir, "package.json"), "{ not json");
    expect(await readPackageTestScript(dir)).toBeUndefined();
    await mkdir(join(dir, "empty"));
    expect(await readPackageTestScript(join(dir, "empty"))).toBeUndefined();
  });
});

describe("withMachineReporter", () => {
  it.each([
    ["node --test", "node --test --test-reporter=tap", "node_tap"],
    ["node --test test/", "node --test --test-reporter=tap test/", "node_tap"],
    ["tsc && node --test", "tsc && node --test --test-reporter=tap", "node_tap"],
    ["node --test --test-reporter=tap", "node --test --test-reporter=tap", "node_tap"],
    ["node --test --test-reporter=spec", "node --test --test-reporter=spec", "exit_code"],
    ["vitest run", "vitest run --reporter=json", "jest_json"],
    ["npx vitest run --coverage", "npx vitest run --reporter=json --coverage", "jest_json"],
    ["vitest run --reporter=dot", "vitest run --reporter=dot", "exit_code"],
    ["jest", "jest --json", "jest_json"],
    ["npx jest --json", "npx jest --json", "jest_json"],
    ["mocha", "mocha", "mocha_summary"],
    ["npx mocha --reporter spec test/", "npx mocha --reporter spec test/", "mocha_summary"],
    ["mocha -R dot", "mocha -R dot", "mocha_summary"],
    ["mocha --reporter tap", "mocha --reporter tap", "tap"],
    ["mocha --reporter json", "mocha --reporter json", "exit_code"],
    ["tape test/*.js", "tape test/*.js", "tap"],
    ["tape test/*.js | tap-spec", "tape test/*.js | tap-spec", "exit_code"],
    ["tap", "tap --reporter=tap", "tap"],
    ["tap -R tap test/", "tap -R tap test/", "tap"],
    ["ava", "ava --tap", "tap"],
    ["npx ava --verbose", "npx ava --tap --verbose", "tap"],
    ["pnpm test", "pnpm test", "exit_code"],
    ["node --test-only x.js", "node --test-only x.js", "exit_code"],
    ["pytest", "pytest -rA", "pytest_summary"],
    ["python3 -m pytest -q tests/", "python3 -m pytest -rA -q tests/", "pytest_summary"],
    ["pytest -rf", "pytest -rf", "pytest_summary"],
    ["uv run py.test", "uv run py.test -rA", "pytest_summary"],
    ["pytest-watch", "pytest-watch", "exit_code"],
    [
      "python -m unittest discover -s tests",
      "python -m unittest discover -s tests",
      "unittest_summary",
    ],
    ["python3.12 -m unittest", "python3.12 -m unittest", "unittest_summary"],
    ["go test ./...", "go test -json ./...", "go_test_json"],
    ["go test -json -run TestAdd", "go test -json -run TestAdd", "go_test_json"],
    ["go vet ./... && go test ./...", "go vet ./... && go test -json ./...", "go_test_json"],
    ["cargo test", "cargo test --no-fail-fast", "libtest_summary"],
    ["cargo test -- --nocapture", "cargo test --no-fail-fast -- --nocapture", "libtest_summary"],
    [
      "cargo test -- --format json -Z unstable-options",
      "cargo test -- --format json -Z unstable-options",
      "exit_code",
    ],
    ["cargo nextest run", "cargo nextest run", "exit_code"],
    ["make test", "make test", "exit_code"],
  ])("%s → %s (%s)", (command, expected, report) => {
    expect(withMachineReporter(command)).toMatchObject({ command: expected, report });
  });

  it.each([
    ["npm test", { test: "vitest run" }, "npm test -- --reporter=json", "jest_json"],
    ["npm test -- math", { test: "vitest run" }, "npm test -- math --reporter=json", "jest_json"],
    ["npm t", { test: "jest" }, "npm t -- --json", "jest_json"],
    ["pnpm test", { test: "vitest run" }, "pnpm test --reporter=json", "jest_json"],
    ["pnpm run unit", { unit: "jest --ci" }, "pnpm run unit --json", "jest_json"],
    ["yarn test", { test: "ava" }, "yarn test --tap", "tap"],
    ["npm run spec", { spec: "mocha --reporter spec" }, "npm run spec", "mocha_summary"],
    ["npm test", { test: "tape test/*.js" }, "npm test", "tap"],
    [
      "npm test",
      { test: "node --test" },
      // The shell expands the user's own NODE_OPTIONS after the reporter.
      `NODE_OPTIONS="--test-reporter=tap $\{NODE_OPTIONS:-}" npm test`,
      "node_tap",
    ],
    // The runner is not the script's last command: its own command runs, planned.
    [
      "npm test",
      { test: "vitest run && eslint ." },
      "vitest run --reporter=json && eslint .",
      "jest_json",
    ],
    // A script that calls another: the innermost call is planned.
    ["npm test", { test: "npm run unit", unit: "jest" }, "npm run unit -- --json", "jest_json"],
    ["npm test", { test: "make check" }, "npm test", "exit_code"],
    ["npm test", { test: "pytest" }, "npm test -- -rA", "pytest_summary"],
    ["npm test", {}, "npm test", "exit_code"],
  ])("%s with scripts %j → %s (%s)", (command, scripts, expected, report) => {
    expect(withMachineReporter(command, scripts)).toMatchObject({ command: expected, report });
  });

  it("names the runner it recognised even when it cannot read the reporter the command chose", () => {
    expect(withMachineReporter("npm test", { test: "vitest run --reporter=verbose" })).toEqual({
      command: "npm test",
      report: "exit_code",
      runner: "vitest",
    });
  });
});

describe("report parsers", HANG_GUARD, () => {
  it("need a complete report: output cut before node's summary is no report", async () => {
    await writeFile(join(dir, "mixed.test.js"), MIXED_TESTS);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--test", "--test-reporter=tap"],
      { cwd: dir },
    ).catch((error: { stdout: string }) => error);
    expect(parseNodeTap(stdout)).toBeDefined();
    expect(parseNodeTap(stdout.slice(0, stdout.indexOf("# tests")))).toBeUndefined();
    expect(parseJestLikeJson('{"numPassedTests": 1, "numFailed')).toBeUndefined();
  });

  it("count a file that failed before any test ran as a failure named after it", () => {
    const report = {
      numPassedTests: 0,
      numFailedTests: 0,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [
        {
          name: "/w/broken.test.ts",
          status: "failed",
          message: "SyntaxError",
          assertionResults: [],
        },
      ],
    };
    expect(parseJestLikeJson(`noise\n${JSON.stringify(report)}\n`)).toEqual({
      passed: 0,
      failed: 1,
      skipped: 0,
      failures: [{ name: "/w/broken.test.ts", message: "SyntaxError" }],
    });
  });
  it("undo TAP's escapes in a name, so '\\#' is part of it and not a directive", () => {
    const tap =
      "TAP version 13\nnot ok 1 - counts \\# of items\n  ---\n  error: 'off by one'\n  ...\n1..1\n";
    expect(parseTap(tap)).toEqual({
      passed: 0,
      failed: 1,
      skipped: 0,
      failures: [{ name: "counts # of items", message: "off by one" }],
    });
  });

  it("are no report when a TAP producer bailed out or announced more points than it printed", () => {
    expect(parseTap("TAP version 13\nok 1 - a\nBail out! database down\n1..3\n")).toBeUndefined();
    expect(parseTap("TAP version 13\n1..3\nok 1 - a\nok 2 - b\n")).toBeUndefined();
    expect(parseTap("all good\n")).toBeUndefined();
  });

  it("read mocha's summary of a failing test outside any suite, and of a failing hook", () => {
    const summary = [
      "  0 passing (3ms)",
      "  2 failing",
      "",
      "  1) stands alone:",
      "     Error: boom",
      "      at Context.<anonymous> (test/a.js:1:1)",
      "",
      "  2) db",
      '       "before each" hook for "reads":',
      "     Error: no connection",
      "",
    ].join("\n");
    expect(parseMochaSummary(summary)).toEqual({
      passed: 0,
      failed: 2,
      skipped: 0,
      failures: [
        { name: "stands alone", message: expect.stringContaining("Error: boom") },
        {
          name: 'db > "before each" hook for "reads"',
          message: expect.stringContaining("no connection"),
        },
      ],
    });
  });
});
