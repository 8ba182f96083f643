/**
 * `run_tests` on the runners engineers use beyond JavaScript, each run for real on a small
 * project written into a temporary folder: pytest, `python -m unittest`, `go test` and
 * `cargo test`. The machine needs python3 with pytest, go and cargo (`.ci/run` installs
 * Debian's `python3-pytest` and `golang-go`; cargo comes with rustup or Debian's `cargo`).
 */
import { mkdir, mkdtemp, realpath, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunTestsResult } from "../src/test-runs/run-tests.ts";
import type { TestFailure } from "../src/test-runs/test-report.ts";
import { runTestsIn } from "./support/run-tests.ts";

// A first `go test` or `cargo test` compiles on a shared machine: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 240_000 };

let dir: string;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-runners-")));
}, 60_000);
afterEach(() => rm(dir, { recursive: true, force: true }), 60_000);

async function write(files: Readonly<Record<string, string>>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
}

async function runTests(testCommand: string): Promise<RunTestsResult> {
  const result = await runTestsIn(dir, { testCommand })({});
  if (!("report" in result)) throw new Error(`run_tests failed: ${JSON.stringify(result)}`);
  return result;
}

const names = (result: RunTestsResult) => result.failures.map((failure) => failure.name);

describe("run_tests after an edit that keeps a Python file's size and mtime", HANG_GUARD, () => {
  it("tests the edited source, not the bytecode of the version before", async () => {
    await write({
      "calc.py": "def add(a, b):\n    return a - b\n",
      "test_calc.py": "from calc import add\n\ndef test_adds():\n    assert add(2, 2) == 4\n",
    });
    const file = join(dir, "calc.py");
    const { mtime } = await stat(file);
    expect(await runTests("python3 -m pytest")).toMatchObject({ passed: 0, failed: 1 });
    // The fix an agent makes a moment later: same size, and (as within one second) same mtime.
    await writeFile(file, "def add(a, b):\n    return a + b\n");
    await utimes(file, mtime, mtime);
    expect(await runTests("python3 -m pytest")).toMatchObject({ passed: 1, failed: 0 });
  });
});

const PYTEST_PROJECT = {
  "test_calc.py": [
    "import pytest",
    "",
    "def test_adds():",
    "    assert 1 + 1 == 2",
    "",
    "def test_carries():",
    '    assert -1 + -1 == -3, "sign lost"',
    "",
    '@pytest.mark.skip(reason="later")',
    "def test_later():",
    "    pass",
    "",
    "class TestGroup:",
    "    def test_inner(self):",
    "        assert [1, 2] == [1, 3]",
    "",
    '@pytest.mark.parametrize("x", [1, 2])',
    "def test_param(x):",
    "    assert x == 1",
    "",
    "@pytest.mark.xfail",
    "def test_known_bug():",
    "    assert False",
    "",
  ].join("\n"),
  "test_setup.py": [
    "import pytest",
    "",
    "@pytest.fixture",
    "def broken():",
    '    raise RuntimeError("fixture broke")',
    "",
    "def test_uses(broken):",
    "    pass",
    "",
  ].join("\n"),
};

const UNITTEST_PROJECT = {
  "test_calc.py": [
    "import unittest",
    "",
    "class Calc(unittest.TestCase):",
    "    def test_adds(self):",
    "        self.assertEqual(1 + 1, 2)",
    "    def test_carries(self):",
    '        self.assertEqual(-1 + -1, -3, "sign lost")',
    "    def test_errors(self):",
    '        raise RuntimeError("boom")',
    '    @unittest.skip("later")',
    "    def test_later(self):",
    "        pass",
    "    @unittest.expectedFailure",
    "    def test_known_bug(self):",
    "        self.assertTrue(False)",
    "    def test_cases(self):",
    "        for i in range(2):",
    "            with self.subTest(i=i):",
    "                self.assertEqual(i, 0)",
    "",
  ].join("\n"),
};

const GO_MODULE = {
  "go.mod": "module example.com/calc\n\ngo 1.19\n",
  "calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
};

const GO_PROJECT = {
  ...GO_MODULE,
  "calc_test.go": [
    "package calc",
    "",
    'import "testing"',
    "",
    "func TestAdd(t *testing.T) {",
    "\tif got := Add(2, 2); got != 4 {",
    '\t\tt.Errorf("Add(2, 2) = %d, want 4", got)',
    "\t}",
    "}",
    "",
    "func TestZero(t *testing.T) {",
    '\tif Add(0, 0) != 0 { t.Fatal("zero") }',
    "}",
    "",
    "func TestTable(t *testing.T) {",
    '\tt.Run("one", func(t *testing.T) {})',
    '\tt.Run("two", func(t *testing.T) { t.Error("second case broken") })',
    "}",
    "",
    'func TestLater(t *testing.T) { t.Skip("later") }',
    "",
  ].join("\n"),
};

const CARGO_PROJECT = {
  "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
  "src/lib.rs": [
    "/// Adds.",
    "///",
    "/// ```",
    "/// assert_eq!(calc::add(1, 2), 3);",
    "/// ```",
    "pub fn add(a: i32, b: i32) -> i32 { a - b }",
    "",
    "#[cfg(test)]",
    "mod tests {",
    "    use super::*;",
    "    #[test]",
    "    fn adds() { assert_eq!(add(2, 2), 4); }",
    "    #[test]",
    "    fn zero() { assert_eq!(add(0, 0), 0); }",
    "    #[test]",
    "    #[ignore]",
    "    fn later() {}",
    "}",
    "",
  ].join("\n"),
  "tests/api.rs": "#[test]\nfn subtracts_zero() { assert_eq!(calc::add(1, 0), 1); }\n",
};

/** A project some of whose tests fail, and all that `run_tests` must read from its run. */
interface FailingRun {
  readonly title: string;
  readonly project: Readonly<Record<string, string>>;
  readonly testCommand: string;
  /** What the result reports besides its kind; `command` as planned, its reporter added. */
  readonly reports: Pick<RunTestsResult, "passed" | "failed" | "skipped" | "exitCode" | "command">;
  /** Every failure's name, in the runner's order, or sorted where `sorted` (the order is not fixed). */
  readonly failures: readonly string[];
  readonly sorted?: boolean;
  /** What the failures' messages must hold, looked up by name. */
  readonly messages: (message: (name: string) => string | undefined) => void;
}

/** A project whose tests all pass. */
interface GreenRun {
  readonly title: string;
  readonly project: Readonly<Record<string, string>>;
  readonly testCommand: string;
  readonly passed: number;
}

/** One runner: its report, a failing run and maybe a green one, and the cases only it has. */
interface RunnerCases {
  readonly runner: string;
  readonly report: RunTestsResult["report"];
  readonly failing: FailingRun;
  readonly green?: GreenRun;
  readonly more?: () => void;
}

const RUNNERS: readonly RunnerCases[] = [
  {
    runner: "pytest",
    report: "pytest_summary",
    failing: {
      title:
        "adds -rA and reads the counts (errors as failures, xfail as skipped) and every failure by node id",
      project: PYTEST_PROJECT,
      testCommand: "python3 -m pytest",
      reports: { passed: 2, failed: 4, skipped: 2, exitCode: 1, command: "python3 -m pytest -rA" },
      failures: [
        "test_calc.py::TestGroup::test_inner",
        "test_calc.py::test_carries",
        "test_calc.py::test_param[2]",
        "test_setup.py::test_uses",
      ],
      sorted: true,
      messages: (message) => {
        expect(message("test_calc.py::test_carries")).toContain("AssertionError: sign lost");
        expect(message("test_calc.py::test_carries")).toContain("test_calc.py:7: AssertionError");
        expect(message("test_setup.py::test_uses")).toContain("RuntimeError: fixture broke");
        expect(message("test_calc.py::test_param[2]")).toContain("assert 2 == 1");
      },
    },
    green: {
      title: "reads -q's closing line, and an all-green run",
      project: { "test_ok.py": "def test_one():\n    pass\n\ndef test_two():\n    pass\n" },
      testCommand: "python3 -m pytest -q",
      passed: 2,
    },
    more: () => {
      it("counts a module that fails to import as a failure named after its file", async () => {
        await write({ "test_bad.py": "import not_a_module_anywhere\n\ndef test_x():\n    pass\n" });
        const result = await runTests("python3 -m pytest");
        expect(result).toMatchObject({ passed: 0, failed: 1, report: "pytest_summary" });
        expect(result.failures).toEqual([
          { name: "test_bad.py", message: expect.stringContaining("not_a_module_anywhere") },
        ]);
      });
    },
  },
  {
    runner: "python -m unittest",
    report: "unittest_summary",
    failing: {
      title:
        "reads the summary from stderr: failures, errors and subtests failed, skips and expected failures skipped",
      project: UNITTEST_PROJECT,
      testCommand: "python3 -m unittest",
      reports: { passed: 1, failed: 3, skipped: 2, exitCode: 1, command: "python3 -m unittest" },
      failures: [
        "test_calc.Calc.test_carries",
        "test_calc.Calc.test_cases (i=1)",
        "test_calc.Calc.test_errors",
      ],
      sorted: true,
      messages: (message) => {
        expect(message("test_calc.Calc.test_carries")).toContain(
          "AssertionError: -2 != -3 : sign lost",
        );
      },
    },
    green: {
      title: "reads an all-green run",
      project: {
        "test_ok.py":
          "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n",
      },
      testCommand: "python3 -m unittest",
      passed: 1,
    },
  },
  {
    runner: "go test",
    report: "go_test_json",
    failing: {
      title:
        "adds -json and counts leaf tests, each failure named package > Test/sub with what it printed",
      project: GO_PROJECT,
      testCommand: "go test ./...",
      reports: { passed: 2, failed: 2, skipped: 1, exitCode: 1, command: "go test -json ./..." },
      failures: ["example.com/calc > TestAdd", "example.com/calc > TestTable/two"],
      messages: (message) => {
        expect(message("example.com/calc > TestAdd")).toContain("Add(2, 2) = 0, want 4");
        expect(message("example.com/calc > TestTable/two")).toContain("second case broken");
      },
    },
    more: () => {
      it("falls back to the exit code when the package does not build, keeping the compiler's message", async () => {
        await write({
          ...GO_MODULE,
          "calc_test.go":
            'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) { var s string = Add(1, 1); _ = s }\n',
        });
        const result = await runTests("go test ./...");
        expect(result.exitCode).not.toBe(0);
        if (result.report === "go_test_json") {
          // Go 1.24 and later report a build failure as JSON events: a failure named after the package.
          expect(result).toMatchObject({ passed: 0, failed: 1 });
          expect(names(result)).toEqual(["example.com/calc"]);
        } else {
          expect(result).toMatchObject({ passed: null, report: "exit_code" });
          expect(result.output).toContain("cannot use Add(1, 1)");
        }
      });
    },
  },
  {
    runner: "cargo test",
    report: "libtest_summary",
    failing: {
      title:
        "adds --no-fail-fast and sums every test binary: unit tests, integration tests and doc-tests",
      project: CARGO_PROJECT,
      testCommand: "cargo test",
      reports: {
        passed: 2,
        failed: 2,
        skipped: 1,
        exitCode: 101,
        command: "cargo test --no-fail-fast",
      },
      failures: ["tests::adds", "src/lib.rs - add (line 3)"],
      messages: (message) => {
        // Rust 1.73 changed the wording (`left: 0` from `` left: `0`, ``): both name the values.
        expect(message("tests::adds")).toMatch(/left: `?0`?,?\n\s*right: `?4`?/);
        expect(message("tests::adds")).not.toContain("stack backtrace");
      },
    },
  },
];

/** Code-unit order, as `Array.prototype.sort` gives strings. */
const byName = (a: TestFailure, b: TestFailure) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

for (const { runner, report, failing, green, more } of RUNNERS) {
  describe(`run_tests on ${runner}`, HANG_GUARD, () => {
    it(failing.title, async () => {
      await write(failing.project);
      const result = await runTests(failing.testCommand);
      expect(result).toMatchObject({ ...failing.reports, report });
      const failures = failing.sorted ? [...result.failures].sort(byName) : result.failures;
      expect(failures).toEqual(
        failing.failures.map((name) => ({ name, message: expect.any(String) })),
      );
      failing.messages((name) => result.failures.find((f) => f.name === name)?.message);
    });

    if (green !== undefined)
      it(green.title, async () => {
        await write(green.project);
        expect(await runTests(green.testCommand)).toMatchObject({
          passed: green.passed,
          failed: 0,
          skipped: 0,
          failures: [],
          exitCode: 0,
          report,
        });
      });

    more?.();
  });
}

describe("run_tests on a runner it cannot read", HANG_GUARD, () => {
  it("says that exit 0 of the whole command counts as passed with unknown counts", async () => {
    await write({ "check.sh": "echo all good\n" });
    expect(await runTests("sh check.sh")).toMatchObject({
      passed: null,
      failed: null,
      exitCode: 0,
      report: "exit_code",
      note: expect.stringContaining("算作通过（个数未知）"),
    });
  });

  it("says that any other exit status counts as not passed", async () => {
    await write({ "check.sh": "echo broken; exit 4\n" });
    expect(await runTests("sh check.sh")).toMatchObject({
      passed: null,
      exitCode: 4,
      report: "exit_code",
      note: expect.stringContaining("以退出码 4 结束，算作没有通过"),
    });
  });
});
