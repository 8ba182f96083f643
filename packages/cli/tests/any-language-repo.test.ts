/**
 * The capstone on a repository that is not JavaScript: a scripted run reads the failing
 * test (counts and name) from the real runner, fixes it with edit_file, runs the tests
 * again and finishes through the default finish gate. Needs python3 with pytest, go and
 * cargo on the machine (`.ci/run` installs them).
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, runScripted, toolResults } from "./support/run-cli.ts";

// Real runners compile and start on a shared machine: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 240_000 };

let base: string;
let workspace: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-any-repo-")));
  workspace = join(base, "repo");
  await mkdir(workspace);
}, 60_000);
afterEach(() => rm(base, { recursive: true, force: true }), 60_000);

async function write(files: Readonly<Record<string, string>>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(workspace, file)), { recursive: true });
    await writeFile(join(workspace, file), text);
  }
}

const finish = { action: { type: "finish", summary: "修好了" } };

/** run_tests, the fix, run_tests again, finish: the gate decides whether the run completes. */
function fixRun(options: {
  testCommand: string;
  fix: { path: string; old: string; new: string };
  /** Where run_tests runs; default none (the bwrap case is its own test). */
  sandbox?: "none" | "bwrap";
}) {
  return runScripted({
    turns: [call("run_tests", {}), call("edit_file", options.fix), call("run_tests", {}), finish],
    flags: [
      "--approval",
      "auto",
      "--sandbox",
      options.sandbox ?? "none",
      "--test-command",
      options.testCommand,
      // Only the fixed file may change: build output and caches must not count as changes.
      "--allow-path",
      options.fix.path,
      "--max-finish-rejections",
      "1",
    ],
    workspace,
    scriptDir: base,
    goal: "修好失败的测试",
  });
}

/** The run completed through the gate on fresh evidence, with only the fixed file changed. */
function expectCompletedOnFreshEvidence(
  result: { status: string; evidence: Record<string, unknown> & { endVersion: string } },
  file: string,
) {
  expect(result.status).toBe("completed");
  expect(result.evidence).toMatchObject({
    tests: { version: result.evidence.endVersion },
    changedFiles: [file],
  });
}

describe(
  "a scripted fix on a repository in another language, through the default finish gate",
  HANG_GUARD,
  () => {
    it.each(["none", "bwrap"] as const)(
      "pytest in a git repository (sandbox %s): the failing test named before the fix, __pycache__ and .pytest_cache not changes",
      async (sandbox) => {
        await write({
          ".gitignore": "__pycache__/\n.pytest_cache/\n",
          "calc.py": "def add(a, b):\n    return a - b\n",
          "tests/test_calc.py":
            "from calc import add\n\ndef test_adds():\n    assert add(2, 2) == 4\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
          "tests/conftest.py":
            "import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
        });
        execFileSync("git", ["init", "-q"], { cwd: workspace });
        const { code, result } = await fixRun({
          testCommand: "python3 -m pytest",
          sandbox,
          fix: { path: "calc.py", old: "return a - b", new: "return a + b" },
        });
        const [before, , after] = toolResults(result);
        expect(before?.value).toMatchObject({
          passed: 1,
          failed: 1,
          report: "pytest_summary",
          failures: [{ name: "tests/test_calc.py::test_adds" }],
        });
        expect(after?.value).toMatchObject({ passed: 2, failed: 0 });
        expect(code).toBe(0);
        expectCompletedOnFreshEvidence(result, "calc.py");
        expect(result.evidence.tests).toMatchObject({ passed: 2, failed: 0, skipped: 0 });
      },
    );

    it.each(["none", "bwrap"] as const)(
      "a Go module (sandbox %s): go test -json read before the fix, the failing subtest named",
      async (sandbox) => {
        await write({
          "go.mod": "module example.com/calc\n\ngo 1.19\n",
          "calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
          "calc_test.go": [
            "package calc",
            "",
            'import "testing"',
            "",
            "func TestAdd(t *testing.T) {",
            '\tt.Run("positive", func(t *testing.T) {',
            '\t\tif got := Add(2, 2); got != 4 { t.Errorf("Add(2, 2) = %d, want 4", got) }',
            "\t})",
            '\tt.Run("zero", func(t *testing.T) {',
            '\t\tif Add(0, 0) != 0 { t.Error("zero") }',
            "\t})",
            "}",
            "",
          ].join("\n"),
        });
        const { code, result } = await fixRun({
          testCommand: "go test ./...",
          // Under bwrap the build cache (in the home folder) is read-only: go must still test.
          sandbox,
          fix: { path: "calc.go", old: "return a - b", new: "return a + b" },
        });
        const [before, , after] = toolResults(result);
        expect(before?.value).toMatchObject({
          passed: 1,
          failed: 1,
          report: "go_test_json",
          failures: [{ name: "example.com/calc > TestAdd/positive" }],
        });
        expect(after?.value).toMatchObject({ passed: 2, failed: 0 });
        expect(code).toBe(0);
        expectCompletedOnFreshEvidence(result, "calc.go");
      },
    );

    it.each(["none", "bwrap"] as const)(
      "a Rust crate outside git (sandbox %s): cargo test read before the fix, target/ not a change",
      async (sandbox) => {
        await write({
          "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
          // Committed as a crate's lock file is (lock format 3: read by old and new cargo alike).
          "Cargo.lock":
            '# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 3\n\n[[package]]\nname = "calc"\nversion = "0.1.0"\n',
          "src/lib.rs": [
            "pub fn add(a: i32, b: i32) -> i32 { a - b }",
            "",
            "#[cfg(test)]",
            "mod tests {",
            "    #[test]",
            "    fn adds() { assert_eq!(super::add(2, 2), 4); }",
            "    #[test]",
            "    fn zero() { assert_eq!(super::add(0, 0), 0); }",
            "}",
            "",
          ].join("\n"),
        });
        const { code, result } = await fixRun({
          testCommand: "cargo test",
          // Under bwrap cargo's home is read-only and the network is gone: a crate without
          // dependencies still builds and tests.
          sandbox,
          fix: { path: "src/lib.rs", old: "{ a - b }", new: "{ a + b }" },
        });
        const [before, , after] = toolResults(result);
        expect(before?.value).toMatchObject({
          passed: 1,
          failed: 1,
          report: "libtest_summary",
          failures: [{ name: "tests::adds" }],
        });
        expect(after?.value).toMatchObject({ passed: 2, failed: 0 });
        expect(code).toBe(0);
        expectCompletedOnFreshEvidence(result, "src/lib.rs");
        expect(result.evidence.tests).toMatchObject({ passed: 2, failed: 0 });
      },
    );

    it("a runner it cannot read: the exit status of the whole command is the evidence, and says so", async () => {
      await write({
        "calc.sh": "add() { echo $(($1 - $2)); }\n",
        "check.sh":
          '. ./calc.sh\n[ "$(add 2 2)" = 4 ] || { echo "add 2 2 gave $(add 2 2)"; exit 1; }\necho ok\n',
      });
      const { code, result } = await fixRun({
        testCommand: "sh check.sh",
        fix: { path: "calc.sh", old: "$1 - $2", new: "$1 + $2" },
      });
      const [before, , after] = toolResults(result);
      expect(before?.value).toMatchObject({
        passed: null,
        exitCode: 1,
        report: "exit_code",
        output: expect.stringContaining("add 2 2 gave 0"),
        note: expect.stringContaining("算作没有通过"),
      });
      expect(after?.value).toMatchObject({
        passed: null,
        exitCode: 0,
        note: expect.stringContaining("算作通过（个数未知）"),
      });
      expect(code).toBe(0);
      expectCompletedOnFreshEvidence(result, "calc.sh");
      expect(result.evidence.tests).toEqual({
        passed: null,
        failed: null,
        skipped: null,
        report: "exit_code",
        exitCode: 0,
        version: result.evidence.endVersion,
      });
    });
  },
);
