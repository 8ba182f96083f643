import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, finish, runScripted, toolResults } from "./support/run-cli.ts";

// Real `node --test` runs and a real filesystem: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let base: string;
let workspace: string;

const BUGGY = "export function sum(a, b) {\n  return a - b;\n}\n";
const FIXED = "export function sum(a, b) {\n  return a + b;\n}\n";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

// Temp folders on a loaded machine: a hook timeout only turns a hang into a failure.
const HOOK_HANG_GUARD = 60_000;

// A small repository whose one `node:test` test fails until `sum` adds.
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-fix-")));
  workspace = join(base, "repo");
  await mkdir(join(workspace, "src"), { recursive: true });
  await mkdir(join(workspace, "test"));
  await writeFile(
    join(workspace, "package.json"),
    JSON.stringify({ type: "module", scripts: { test: "node --test" } }),
  );
  await writeFile(join(workspace, "src", "sum.js"), BUGGY);
  await writeFile(
    join(workspace, "test", "sum.test.js"),
    'import test from "node:test";\nimport assert from "node:assert/strict";\nimport { sum } from "../src/sum.js";\n\ntest("sum adds", () => {\n  assert.equal(sum(2, 3), 5);\n});\n',
  );
  await writeFile(join(base, "outside.js"), "outside\n");
}, HOOK_HANG_GUARD);
afterEach(() => rm(base, { recursive: true, force: true }), HOOK_HANG_GUARD);

function cli(turns: unknown[], flags: string[]) {
  return runScripted({ turns, flags, workspace, scriptDir: base, goal: "修复失败的测试" });
}

const FIX_SCRIPT = [
  call("run_tests", {}),
  call("read_file", { path: "src/sum.js" }),
  call("edit_file", {
    path: "src/sum.js",
    old: "return a - b;",
    new: "return a + b;",
    expectedHash: sha256(BUGGY),
  }),
  call("run_tests", {}),
  { action: { type: "finish", summary: "sum 改为相加，测试全部通过" } },
];

describe("coding-agent run fixes a failing node:test repository", HANG_GUARD, () => {
  it("runs the tests, reads the file, edits it with the hash it read, and the tests pass", async () => {
    const { code, result, stderr } = await cli(FIX_SCRIPT, [
      "--test-command",
      "node --test",
      "--approval",
      "auto",
      "--sandbox",
      "none",
    ]);
    expect(code).toBe(0);
    const [before, read, edit, after] = toolResults(result);
    expect(before).toMatchObject({
      tool: "run_tests",
      ok: true,
      value: {
        passed: 0,
        failed: 1,
        skipped: 0,
        exitCode: 1,
        failures: [{ name: "sum adds", message: expect.stringContaining("-1 !== 5") }],
      },
    });
    expect(read).toMatchObject({ tool: "read_file", value: { hash: sha256(BUGGY) } });
    expect(edit).toEqual({
      tool: "edit_file",
      ok: true,
      value: {
        path: "src/sum.js",
        hash: sha256(FIXED),
        diff: "--- a/src/sum.js\n+++ b/src/sum.js\n@@ -1,3 +1,3 @@\n export function sum(a, b) {\n-  return a - b;\n+  return a + b;\n }\n",
      },
    });
    expect(after).toMatchObject({
      tool: "run_tests",
      value: { passed: 1, failed: 0, failures: [], exitCode: 0 },
    });
    expect(await readFile(join(workspace, "src", "sum.js"), "utf8")).toBe(FIXED);
    expect(stderr).toContain("本次运行修改了 1 个文件\n  src/sum.js +1 -1\n");
  });

  it("runs the package.json test script when no --test-command is given", async () => {
    const { result } = await cli(
      [call("run_tests", {}), finish],
      ["--approval", "auto", "--sandbox", "none"],
    );
    expect(toolResults(result)[0]).toMatchObject({
      value: { failed: 1, command: "node --test --test-reporter=tap" },
    });
  });

  it("refuses a stale hash, a non-unique match and a path outside --allow-path with the §6 codes, and goes on", async () => {
    const { code, result } = await cli(
      [
        call("write_file", { path: "src/sum.js", content: `${BUGGY}// touched\n` }),
        call("edit_file", {
          path: "src/sum.js",
          old: "return a - b;",
          new: "return a + b;",
          expectedHash: sha256(BUGGY),
        }),
        call("edit_file", { path: "src/sum.js", old: "b", new: "c" }),
        call("edit_file", { path: "test/sum.test.js", old: "5", new: "-1" }),
        call("write_file", { path: "../outside.js", content: "owned\n" }),
        finish,
      ],
      // The edit codes are what is tested here, not the finish gate (lesson 21).
      [
        "--allow-path",
        "src/**",
        "--approval",
        "auto",
        "--sandbox",
        "none",
        "--finish-gate",
        "none",
      ],
    );
    expect(code).toBe(0);
    expect(toolResults(result).map((r) => r.error?.code ?? "ok")).toEqual([
      "ok",
      "stale_file",
      "not_unique",
      "path_not_allowed",
      "path_outside_workspace",
    ]);
    expect(toolResults(result)[2]?.error?.message).toContain("第 1、2 行");
    expect(await readFile(join(workspace, "src", "sum.js"), "utf8")).toBe(`${BUGGY}// touched\n`);
    expect(await readFile(join(base, "outside.js"), "utf8")).toBe("outside\n");
  });

  it("ends blocked (exit 4) under --approval deny before a byte is written", async () => {
    const { code, result } = await cli(FIX_SCRIPT, [
      "--test-command",
      "node --test",
      "--approval",
      "deny",
      "--sandbox",
      "none",
    ]);
    expect(code).toBe(4);
    expect(result).toMatchObject({ status: "blocked", code: "permission_denied" });
    expect(await readFile(join(workspace, "src", "sum.js"), "utf8")).toBe(BUGGY);
  });

  it("turns a hanging test command into a timeout result, and the run goes on", async () => {
    const { code, result } = await cli(
      [call("run_tests", { timeoutMs: 1_000 }), finish],
      [
        "--test-command",
        "node -e 'setInterval(() => {}, 1000)'",
        "--sandbox",
        "none",
        "--finish-gate",
        "none",
      ],
    );
    expect(code).toBe(0);
    expect(toolResults(result)[0]).toMatchObject({ ok: false, error: { code: "timeout" } });
  });

  it.each([
    [["--allow-path", "../elsewhere"], "--allow-path 不能含 .."],
    [["--allow-path", "/etc/**"], "--allow-path 要写相对工作区的路径"],
    [["--test-command", " "], "--test-command 需要命令"],
  ])("exits 2 for %j with a Chinese message", async (flags, message) => {
    const { code, stderr } = await cli([finish], flags);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});
