import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, runScripted } from "./support/run-cli.ts";
import { BUGGY, createSumRepo, FIXED, sha256 } from "./support/sum-repo.ts";

// Real `node --test` runs: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let base: string;
let workspace: string;
beforeEach(async () => {
  ({ base, workspace } = await createSumRepo());
}, 60_000);
afterEach(() => rm(base, { recursive: true, force: true }), 60_000);

const finish = { action: { type: "finish", summary: "修好了" } };
const fix = call("edit_file", { path: "src/sum.js", old: "return a - b;", new: "return a + b;" });
const flags = ["--approval", "auto", "--sandbox", "none"];

function cli(turns: unknown[], more: string[] = []) {
  return runScripted({ turns, flags: [...flags, ...more], workspace, scriptDir: base });
}

const rejections = (result: { messages: Array<Record<string, unknown>> }) =>
  result.messages.filter((message) => message.type === "finish_rejected").map((m) => m.reasons);

describe("--finish-gate (auto = tests: the workspace has a test script)", HANG_GUARD, () => {
  it("rejects a finish with no, failing and stale evidence, then accepts fresh passing tests", async () => {
    const { code, result } = await cli(
      [finish, call("run_tests", {}), finish, fix, finish, call("run_tests", {}), finish],
      ["--max-finish-rejections", "4"],
    );
    expect(code).toBe(0);
    expect(result.status).toBe("completed");
    expect(rejections(result)).toEqual([
      ["no_test_evidence"],
      ["tests_failing"],
      ["stale_test_evidence"],
    ]);
    const rejection = result.messages.find(
      (m: Record<string, unknown>) => m.type === "finish_rejected",
    );
    expect(rejection).toMatchObject({
      role: "user",
      content: expect.stringContaining("run_tests"),
    });
    expect(result.evidence).toMatchObject({
      tests: { passed: 1, failed: 0, skipped: 0, version: result.evidence.endVersion },
      changedFiles: ["src/sum.js"],
    });
    expect(result.evidence.startVersion).not.toBe(result.evidence.endVersion);
    expect(result.runId).toMatch(/^\d{8}-\d{6}Z-[0-9a-f]{6}$/);
    expect(result.runDir).toContain(result.runId);
  });

  it("takes a change made by run_command after the tests as stale evidence", async () => {
    const { result } = await cli(
      [
        fix,
        call("run_tests", {}),
        call("run_command", {
          argv: ["node", "-e", "require('fs').appendFileSync('src/sum.js', '//x')"],
        }),
        finish,
      ],
      ["--allow-command", "node", "--max-finish-rejections", "1"],
    );
    expect(result).toMatchObject({ status: "failed", code: "finish_rejected" });
    expect(rejections(result)).toEqual([["stale_test_evidence"]]);
  });

  it("judges changed files on the real workspace, not on what the edit tools logged", async () => {
    // The model fixes the bug, and a command writes a file outside --allow-path behind the edit tools' back.
    const { result } = await cli(
      [
        fix,
        call("run_command", {
          argv: ["node", "-e", "require('fs').writeFileSync('package.json', '{}')"],
        }),
        call("run_tests", {}),
        finish,
      ],
      [
        "--allow-command",
        "node",
        "--allow-path",
        "src/**",
        "--test-command",
        "node --test",
        "--max-finish-rejections",
        "1",
      ],
    );
    expect(rejections(result)).toEqual([["changes_outside_allowed_paths"]]);
    expect(result.messages.at(-1)?.content ?? result.reason).toContain("package.json");
    expect(result.evidence.changedFiles).toEqual(["package.json", "src/sum.js"]);
  });

  it("ends failed / finish_rejected at the third rejection by default (exit 1)", async () => {
    const { code, result } = await cli([finish, finish, finish, finish]);
    expect(code).toBe(1);
    expect(result).toMatchObject({ status: "failed", code: "finish_rejected" });
    expect(rejections(result)).toHaveLength(3);
  });

  it("under --finish-gate none accepts the model's word, and still reports the evidence", async () => {
    const { code, result } = await cli([fix, finish], ["--finish-gate", "none"]);
    expect(code).toBe(0);
    expect(result.evidence).toMatchObject({ tests: null, changedFiles: ["src/sum.js"] });
    expect(await readFile(join(workspace, "src/sum.js"), "utf8")).toBe(FIXED);
  });

  it("is none under auto when there is no test command at all", async () => {
    await writeFile(join(workspace, "package.json"), "{}");
    const { code } = await cli([finish]);
    expect(code).toBe(0);
  });

  it("exits 2 for --finish-gate tests without any test command, and for bad values", async () => {
    await writeFile(join(workspace, "package.json"), "{}");
    const none = await cli([finish], ["--finish-gate", "tests"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--finish-gate tests 需要测试命令");
    const bad = await cli([finish], ["--finish-gate", "maybe"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--finish-gate 只能是 auto、tests、none");
    const zero = await cli([finish], ["--max-finish-rejections", "0"]);
    expect(zero.code).toBe(2);
  });

  it("versions by content: undoing and redoing a change keeps the evidence of those bytes fresh", async () => {
    const { result } = await cli([
      fix,
      call("run_tests", {}),
      call("write_file", { path: "src/sum.js", content: BUGGY, expectedHash: sha256(FIXED) }),
      call("write_file", { path: "src/sum.js", content: FIXED }),
      finish,
    ]);
    // The workspace holds exactly the bytes the tests passed on: the evidence is fresh.
    expect(result.status).toBe("completed");
    expect(result.evidence.tests.version).toBe(result.evidence.endVersion);
  });
});
