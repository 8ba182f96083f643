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

/** The report with node's closing summary replaced by these counts (no cancelled, no todo). */
function withSummary(report: string, counts: { passed: number; failed: number; skipped: number }) {
  const lines = report
    .split("\n")
    .filter((line) => !/^# (pass|fail|cancelled|skipped|todo) \d+$/.test(line));
  return [
    ...lines,
    `# pass ${counts.passed}`,
    `# fail ${counts.failed}`,
    "# cancelled 0",
    `# skipped ${counts.skipped}`,
    "# todo 0",
  ].join("\n");
}

/**
 * What the learner's readNodeTap counts in a report, even when it answers undefined because
 * its counts disagree with node's summary: the summary it would have agreed with, found by
 * trying every small one. Said in words for a failure message.
 */
function yourCounts(report: string): string {
  for (let passed = 0; passed <= 12; passed++) {
    for (let failed = 0; failed <= 12; failed++) {
      for (let skipped = 0; skipped <= 12; skipped++) {
        const counts = readNodeTap(withSummary(report, { passed, failed, skipped }));
        if (counts !== undefined) {
          return `你数出的是 passed ${counts.passed}、failed ${counts.failed}、skipped ${counts.skipped}`;
        }
      }
    }
  }
  return "你的 readNodeTap 对任何汇总都不给出报告";
}

/** The first failure that differs from node's, in words: name and message, yours and node's. */
function failureDrift(failures: readonly { name: string; message: string }[]): string {
  const names = failures.map((failure) => JSON.stringify(failure.name)).join("、");
  if (failures.length !== MIXED_FAILURES.length) return `你读出的名字是 ${names}`;
  for (const [index, expected] of MIXED_FAILURES.entries()) {
    const yours = failures[index];
    if (yours?.name !== expected.name) return `你读出的名字是 ${names}`;
    if (yours.message !== expected.message) {
      return `"${expected.name}" 的消息你读出的是 ${JSON.stringify(yours.message)}，node 写的是 ${JSON.stringify(expected.message)}`;
    }
  }
  return "名字与消息都对，多了别的字段";
}

/** node's own summary of a report, as the learner compares it. */
const NODE_SAYS = `node 的汇总是 passed ${MIXED_COUNTS.passed}、failed ${MIXED_COUNTS.failed}（fail + cancelled）、skipped ${MIXED_COUNTS.skipped}（skipped + todo）`;

describe("readNodeTap", () => {
  it("counts each test once from its ok / not ok line; suites and their # Subtest lines are not tests", () => {
    expect(
      readNodeTap(MIXED_TAP),
      `读出的计数与 node 自己的汇总不一致：${NODE_SAYS}；${yourCounts(MIXED_TAP)}`,
    ).toMatchObject(MIXED_COUNTS);
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
    expect(
      readNodeTap(report),
      `跳过与待办既不是通过也不是失败：node 的汇总是 passed 0、failed 0、skipped 3（skipped 1 + todo 2）；${yourCounts(report)}`,
    ).toEqual({
      passed: 0,
      failed: 0,
      skipped: 3,
      failures: [],
    });
  });

  it("names every failure after its suites and keeps its whole message, every line of it", () => {
    const failures = readNodeTap(MIXED_TAP)?.failures;
    expect(
      failures,
      failures === undefined
        ? `没有报告，读不出失败：${NODE_SAYS}；${yourCounts(MIXED_TAP)}`
        : `失败的名字或消息不对：${failureDrift(failures)}`,
    ).toEqual(MIXED_FAILURES);
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
    const counts = readNodeTap(middleLost);
    expect(
      counts,
      `少读了测试，计数却照样报出：你报出 passed ${counts?.passed}、failed ${counts?.failed}、skipped ${counts?.skipped}，${NODE_SAYS}`,
    ).toBeUndefined();
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
    const value = JSON.parse((observation as { content: string }).content) as Record<
      string,
      unknown
    >;
    const seen = ["passed", "failed", "skipped", "report"]
      .map((key) => `${key} ${JSON.stringify(value[key])}`)
      .join("、");
    expect(value, `模型读到的不是 node 的计数：观察里是 ${seen}；${NODE_SAYS}`).toMatchObject({
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
