import { execFile } from "node:child_process";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { defineTool, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  createRunTests,
  createSandboxPolicy,
  createWorkspace,
  RunTestsInputSchema,
} from "@coding-agent/tools";
import { readNodeTap } from "@lab";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIXED_COUNTS, MIXED_FAILURES, MIXED_TAP, MIXED_TESTS } from "./reports.ts";

/** The report without the lines from the first one matching `from` up to (not including) the first matching `to` after it. */
function cut(report: string, from: RegExp, to: RegExp): string {
  const lines = report.split("\n");
  const start = lines.findIndex((line) => from.test(line));
  const end = lines.findIndex((line, i) => i > start && to.test(line));
  return [...lines.slice(0, start), ...lines.slice(end)].join("\n");
}

describe("readNodeTap", () => {
  it("counts each test once from its ok / not ok line; suites and their # Subtest lines are not tests", () => {
    expect(readNodeTap(MIXED_TAP), "读出的计数与 node 自己的汇总不一致").toMatchObject(
      MIXED_COUNTS,
    );
  });

  it("counts SKIP and TODO as skipped, whether their line says ok or not ok", () => {
    const report = [
      "TAP version 13",
      "# Subtest: later",
      "ok 1 - later # SKIP not yet",
      "# Subtest: idea",
      "not ok 2 - idea # TODO",
      "  ---",
      "  error: 'not done'",
      "  ...",
      "# Subtest: idea that works",
      "ok 3 - idea that works # TODO",
      "1..3",
      "# tests 3",
      "# pass 0",
      "# fail 0",
      "# cancelled 0",
      "# skipped 1",
      "# todo 2",
    ].join("\n");
    expect(readNodeTap(report), "跳过与待办既不是通过也不是失败").toEqual({
      passed: 0,
      failed: 0,
      skipped: 3,
      failures: [],
    });
  });

  it("names every failure after its suites and keeps its whole message, every line of it", () => {
    expect(readNodeTap(MIXED_TAP)?.failures, "失败的名字或消息不对").toEqual(MIXED_FAILURES);
  });

  it("reads a report with Windows line endings the same way", () => {
    expect(readNodeTap(MIXED_TAP.replaceAll("\n", "\r\n")), "CRLF 的报告读得不一样").toEqual({
      ...MIXED_COUNTS,
      failures: MIXED_FAILURES,
    });
  });

  it("is no report when node's closing summary is missing: the run was cut off before its end", () => {
    const beforeSummary = MIXED_TAP.slice(0, MIXED_TAP.indexOf("# tests"));
    expect(readNodeTap(beforeSummary), "没有汇总的报告不完整，不能给出计数").toBeUndefined();
    expect(readNodeTap(""), "空输出不是报告").toBeUndefined();
  });

  it("is no report when the tests it read disagree with the summary: lines were lost in the middle", () => {
    // What an output cap that keeps the head and the tail does to a long report.
    const middleLost = cut(MIXED_TAP, /^# Subtest: math$/, /^# Subtest: parent$/);
    expect(middleLost).toContain("# pass 4");
    expect(readNodeTap(middleLost), "少读了测试，计数却照样报出").toBeUndefined();
  });
});

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "lab-16-")));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(join(dir, "mixed.test.js"), MIXED_TESTS);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function runTestsTool(options: { maxOutputBytes?: number } = {}) {
  return createRunTests({
    policy: createSandboxPolicy({ workspace: createWorkspace(dir), allowCommands: [] }),
    sandbox: { kind: "none" },
    testCommand: "node --test",
    readNodeTap,
    ...options,
  });
}

// Real node --test runs on a shared machine: the timeout only turns a hang into a failure.
describe("your readNodeTap on node's real output", { timeout: 30_000 }, () => {
  it("reads what node --test prints today exactly as node's own summary counts it", async () => {
    const run = await promisify(execFile)(
      process.execPath,
      ["--test", "--test-reporter=tap", "mixed.test.js"],
      { cwd: dir },
    ).catch((failed: { stdout: string }) => failed);
    expect(readNodeTap(run.stdout), "没能从真实的 TAP 读出报告").toEqual({
      ...MIXED_COUNTS,
      failures: MIXED_FAILURES,
    });
  });

  it("inside the real run_tests and runAgent: the model reads the counts and every named failure", async () => {
    const runTests = runTestsTool();
    const tools = {
      run_tests: defineTool({
        inputSchema: RunTestsInputSchema,
        execute: (input, signal) => runTests(input, signal),
      }),
    };
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "run_tests", input: {} } },
      { action: { type: "finish", summary: "看过测试结果了" } },
    ]);
    const result = await runAgent("运行测试", provider, tools, { maxSteps: 4 });
    expect(result.status).toBe("completed");
    const observation = result.messages.find((message) => message.role === "tool");
    expect(observation, "run_tests 没有返回计数").toMatchObject({ ok: true });
    const value = JSON.parse((observation as { content: string }).content) as unknown;
    expect(value, "模型读到的不是 node 的计数").toMatchObject({
      ...MIXED_COUNTS,
      failures: MIXED_FAILURES,
      exitCode: 1,
      report: "node_tap",
    });
  });

  it("a report the output cap cut in the middle: run_tests says it has only the exit code instead of counting what is left", async () => {
    const many = Array.from({ length: 120 }, (_, i) => `test("case ${i}", () => {});`).join("\n");
    await writeFile(
      join(dir, "many.test.js"),
      `import { test } from "node:test";\n${many}\ntest("last", () => { throw new Error("boom"); });\n`,
    );
    const result = await runTestsTool({ maxOutputBytes: 4_000 })({});
    expect(result, "只剩头尾的报告被当成了完整报告").toMatchObject({
      passed: null,
      failed: null,
      report: "exit_code",
      exitCode: 1,
      note: expect.stringContaining("退出码"),
    });
  });
});
