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
import { createSandboxPolicy } from "../src/sandbox/policy.ts";
import { createRunTests, type RunTestsResult } from "../src/test-runs/run-tests.ts";
import { createWorkspace } from "../src/workspace.ts";

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
  const run = createRunTests({
    policy: createSandboxPolicy({ workspace: createWorkspace(dir), allowCommands: [] }),
    sandbox: { kind: "none" },
    testCommand,
  });
  const result = await run({});
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

describe("run_tests on pytest", HANG_GUARD, () => {
  const project = {
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

  it("adds -rA and reads the counts (errors as failures, xfail as skipped) and every failure by node id", async () => {
    await write(project);
    const result = await runTests("python3 -m pytest");
    expect(result).toMatchObject({
      passed: 2,
      failed: 4,
      skipped: 2,
      exitCode: 1,
      report: "pytest_summary",
      command: "python3 -m pytest -rA",
    });
    expect(names(result).sort()).toEqual([
      "test_calc.py::TestGroup::test_inner",
      "test_calc.py::test_carries",
      "test_calc.py::test_param[2]",
      "test_setup.py::test_uses",
    ]);
    const message = (name: string) => result.failures.find((f) => f.name === name)?.message;
    expect(message("test_calc.py::test_carries")).toContain("AssertionError: sign lost");
    expect(message("test_calc.py::test_carries")).toContain("test_calc.py:7: AssertionError");
    expect(message("test_setup.py::test_uses")).toContain("RuntimeError: fixture broke");
    expect(message("test_calc.py::test_param[2]")).toContain("assert 2 == 1");
  });

  it("reads -q's closing line, and an all-green run", async () => {
    await write({ "test_ok.py": "def test_one():\n    pass\n\ndef test_two():\n    pass\n" });
    expect(await runTests("python3 -m pytest -q")).toMatchObject({
      passed: 2,
      failed: 0,
      skipped: 0,
      failures: [],
      exitCode: 0,
      report: "pytest_summary",
    });
  });

  it("counts a module that fails to import as a failure named after its file", async () => {
    await write({ "test_bad.py": "import not_a_module_anywhere\n\ndef test_x():\n    pass\n" });
    const result = await runTests("python3 -m pytest");
    expect(result).toMatchObject({ passed: 0, failed: 1, report: "pytest_summary" });
    expect(result.failures).toEqual([
      { name: "test_bad.py", message: expect.stringContaining("not_a_module_anywhere") },
    ]);
  });
});

describe("run_tests on python -m unittest", HANG_GUARD, () => {
  it("reads the summary from stderr: failures, errors and subtests failed, skips and expected failures skipped", async () => {
    await write({
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
    });
    const result = await runTests("python3 -m unittest");
    expect(result).toMatchObject({
      passed: 1,
      failed: 3,
      skipped: 2,
      exitCode: 1,
      report: "unittest_summary",
      command: "python3 -m unittest",
    });
    expect(names(result).sort()).toEqual([
      "test_calc.Calc.test_carries",
      "test_calc.Calc.test_cases (i=1)",
      "test_calc.Calc.test_errors",
    ]);
    const carries = result.failures.find((f) => f.name === "test_calc.Calc.test_carries");
    expect(carries?.message).toContain("AssertionError: -2 != -3 : sign lost");
  });

  it("reads an all-green run", async () => {
    await write({
      "test_ok.py":
        "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n",
    });
    expect(await runTests("python3 -m unittest")).toMatchObject({
      passed: 1,
      failed: 0,
      skipped: 0,
      failures: [],
      exitCode: 0,
      report: "unittest_summary",
    });
  });
});

describe("run_tests on go test", HANG_GUARD, () => {
  const module = {
    "go.mod": "module example.com/calc\n\ngo 1.19\n",
    "calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
  };

  it("adds -json and counts leaf tests, each failure named package > Test/sub with what it printed", async () => {
    await write({
      ...module,
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
    });
    const result = await runTests("go test ./...");
    expect(result).toMatchObject({
      passed: 2,
      failed: 2,
      skipped: 1,
      exitCode: 1,
      report: "go_test_json",
      command: "go test -json ./...",
    });
    expect(result.failures).toEqual([
      {
        name: "example.com/calc > TestAdd",
        message: expect.stringContaining("Add(2, 2) = 0, want 4"),
      },
      {
        name: "example.com/calc > TestTable/two",
        message: expect.stringContaining("second case broken"),
      },
    ]);
  });

  it("falls back to the exit code when the package does not build, keeping the compiler's message", async () => {
    await write({
      ...module,
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
});

describe("run_tests on cargo test", HANG_GUARD, () => {
  it("adds --no-fail-fast and sums every test binary: unit tests, integration tests and doc-tests", async () => {
    await write({
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
    });
    const result = await runTests("cargo test");
    expect(result).toMatchObject({
      passed: 2,
      failed: 2,
      skipped: 1,
      exitCode: 101,
      report: "libtest_summary",
      command: "cargo test --no-fail-fast",
    });
    expect(names(result)).toEqual(["tests::adds", "src/lib.rs - add (line 3)"]);
    // Rust 1.73 changed the wording (`left: 0` from `` left: `0`, ``): both name the values.
    expect(result.failures[0]?.message).toMatch(/left: `?0`?,?\n\s*right: `?4`?/);
    expect(result.failures[0]?.message).not.toContain("stack backtrace");
  });
});

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
