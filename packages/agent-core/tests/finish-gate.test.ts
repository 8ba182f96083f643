import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import { createFinishGate, type FinishEvidence, judgeFinish } from "../src/finish-gate.ts";
import type { Message } from "../src/messages.ts";
import { toolError } from "../src/tool-error.ts";
import type { ToolSet } from "../src/tools.ts";
import { call, replies } from "./fixtures/actions.ts";

const finish = (summary = "完成") => ({ type: "finish", summary });
const all = () => true;
const evidence = (overrides: Partial<FinishEvidence>): FinishEvidence => ({
  startVersion: "v0",
  endVersion: "v1",
  tests: { passed: 3, failed: 0, skipped: 0, version: "v1" },
  changedFiles: [],
  ...overrides,
});

/** Evidence from a run_tests report without counts: only the test command's exit status. */
const exitStatus = (exitCode: number | null) => ({
  passed: null,
  failed: null,
  skipped: null,
  report: "exit_code" as const,
  exitCode,
  version: "v1",
});

describe("judgeFinish", () => {
  it.each([
    ["fresh passing tests", evidence({}), []],
    ["no test run at all", evidence({ tests: null }), ["no_test_evidence"]],
    [
      "tests older than the last change",
      evidence({ tests: { passed: 3, failed: 0, skipped: 0, version: "v0" } }),
      ["stale_test_evidence"],
    ],
    [
      "a failing test",
      evidence({ tests: { passed: 3, failed: 1, skipped: 0, version: "v1" } }),
      ["tests_failing"],
    ],
    [
      "every test skipped (nothing passed)",
      evidence({ tests: { passed: 0, failed: 0, skipped: 4, version: "v1" } }),
      ["tests_failing"],
    ],
    ["the whole test command exited 0, counts unknown", evidence({ tests: exitStatus(0) }), []],
    ["the test command exited 1", evidence({ tests: exitStatus(1) }), ["tests_failing"]],
    ["the test command was killed", evidence({ tests: exitStatus(null) }), ["tests_failing"]],
    [
      "an exit status older than the last change",
      evidence({ tests: { ...exitStatus(0), version: "v0" } }),
      ["stale_test_evidence"],
    ],
  ])("%s → %j", (_name, given, reasons) => {
    expect(judgeFinish(given, all).reasons).toEqual(reasons);
  });

  it("names the exit status when it rejects a run whose counts could not be read", () => {
    expect(judgeFinish(evidence({ tests: exitStatus(2) }), all).message).toContain("退出码 2");
  });

  it("names files changed outside the allowed paths, besides the test reasons", () => {
    const verdict = judgeFinish(
      evidence({ tests: null, changedFiles: ["src/a.ts", "package.json"] }),
      (file) => file.startsWith("src/"),
    );
    expect(verdict.reasons).toEqual(["no_test_evidence", "changes_outside_allowed_paths"]);
    expect(verdict.message).toContain("package.json");
    expect(verdict.message).not.toContain("src/a.ts");
  });

  it("says nothing when it accepts, and explains in Chinese when it rejects", () => {
    expect(judgeFinish(evidence({}), all).message).toBe("");
    expect(judgeFinish(evidence({ tests: null }), all).message).toMatch(/run_tests/);
  });
});

/** A workspace whose version the test moves, and a run_tests tool reading `counts`. */
function world(extra: ToolSet = {}) {
  const state = { version: "v0", changed: [] as string[] };
  // Failing before the edit, passing after it.
  const counts = () =>
    state.version === "v0" ? { passed: 2, failed: 1 } : { passed: 3, failed: 0 };
  const tools: ToolSet = {
    edit: {
      execute: () => {
        state.version = `${state.version}+`;
        state.changed = ["src/a.ts"];
        return { ok: true };
      },
    },
    run_tests: { execute: () => ({ ...counts(), skipped: 0, failures: [], exitCode: 0 }) },
    ...extra,
  };
  const gate = createFinishGate({
    startVersion: "v0",
    inspect: async () => ({ version: state.version, changedFiles: state.changed }),
    isAllowed: (file) => file.startsWith("src/"),
  });
  return { state, tools, gate };
}

const rejections = (messages: readonly Message[]) =>
  messages.flatMap((message) =>
    "type" in message && message.type === "finish_rejected" ? [message.reasons] : [],
  );

describe("the finish gate in a run", () => {
  it("rejects a finish without tests, then with failing, then stale ones, and accepts fresh passing ones", async () => {
    const { tools, gate } = world();
    const provider = replies(
      finish(),
      call("run_tests", {}),
      finish(),
      call("edit", {}),
      finish(),
      call("run_tests", {}),
      finish(),
    );
    const result = await runAgent("修复", provider, tools, { maxSteps: 10 }, undefined, {
      extensions: [gate],
      maxFinishRejections: 4,
    });
    expect(result.status).toBe("completed");
    expect(rejections(result.messages)).toEqual([
      ["no_test_evidence"],
      ["tests_failing"],
      ["stale_test_evidence"],
    ]);
    expect(await gate.evidence()).toEqual({
      startVersion: "v0",
      endVersion: "v0+",
      tests: { passed: 3, failed: 0, skipped: 0, version: "v0+" },
      changedFiles: ["src/a.ts"],
    });
  });

  it("ends the run failed / finish_rejected at the limit, counted over the whole run", async () => {
    const { tools, gate } = world();
    const result = await runAgent(
      "修复",
      replies(finish(), call("run_tests", {}), finish(), finish()),
      tools,
      { maxSteps: 10 },
      undefined,
      { extensions: [gate], maxFinishRejections: 3 },
    );
    expect(result).toMatchObject({ status: "failed", code: "finish_rejected" });
    expect(rejections(result.messages)).toHaveLength(3);
  });

  it("does not take a tool error of run_tests, or another tool's counts, as evidence", async () => {
    const { tools, gate } = world({
      run_tests: { execute: () => toolError("timeout", "测试超时") },
      fake_tests: { execute: () => ({ passed: 9, failed: 0, skipped: 0 }) },
    });
    const result = await runAgent(
      "修复",
      replies(call("run_tests", {}), call("fake_tests", {}), finish()),
      tools,
      { maxSteps: 10 },
      undefined,
      { extensions: [gate], maxFinishRejections: 1 },
    );
    expect(result).toMatchObject({ status: "failed", code: "finish_rejected" });
    expect(rejections(result.messages)).toEqual([["no_test_evidence"]]);
  });

  it("takes a run_tests report without counts as exit-status evidence, and keeps it in the evidence", async () => {
    const report = (exitCode: number) => ({
      passed: null,
      failed: null,
      skipped: null,
      failures: [],
      exitCode,
      report: "exit_code",
      note: "只能看退出码",
    });
    const { tools, gate } = world({
      run_tests: {
        execute: (_input, _signal) => report(exitCodes.shift() ?? 0),
      },
    });
    const exitCodes = [1, 0];
    const result = await runAgent(
      "修复",
      replies(call("run_tests", {}), finish(), call("edit", {}), call("run_tests", {}), finish()),
      tools,
      { maxSteps: 10 },
      undefined,
      { extensions: [gate], maxFinishRejections: 3 },
    );
    expect(result.status).toBe("completed");
    expect(rejections(result.messages)).toEqual([["tests_failing"]]);
    expect((await gate.evidence()).tests).toEqual({
      passed: null,
      failed: null,
      skipped: null,
      report: "exit_code",
      exitCode: 0,
      version: "v0+",
    });
  });

  it("under --finish-gate none collects evidence but accepts the finish", async () => {
    const { tools } = world();
    const gate = createFinishGate({
      startVersion: "v0",
      inspect: async () => ({ version: "v0", changedFiles: [] }),
      enforce: false,
    });
    const result = await runAgent("修复", replies(finish()), tools, { maxSteps: 3 }, undefined, {
      extensions: [gate],
    });
    expect(result.status).toBe("completed");
    expect((await gate.evidence()).tests).toBeNull();
  });
});

describe("what the gate tells the model", () => {
  it("says per reason what to do, one line each, naming the counts and every file outside", () => {
    const stale = judgeFinish(
      evidence({ tests: { passed: 3, failed: 0, skipped: 0, version: "v0" } }),
      all,
    );
    expect(stale.message).toBe(
      "上次测试之后工作区又被修改过，那次结果已经过期：请重新运行 run_tests。",
    );
    const failing = judgeFinish(
      evidence({
        tests: { passed: 3, failed: 1, skipped: 0, version: "v1" },
        changedFiles: ["a.json", "b.json"],
      }),
      () => false,
    );
    expect(failing.message.split("\n")).toEqual([
      "最近一次测试没有全部通过（通过 3，失败 1）：修好失败的测试并重新运行。",
      "这些文件的改动不在允许的路径内：a.json、b.json。请撤销这些改动。",
    ]);
  });

  it("accepts a single passing test (passed: 1 is enough)", () => {
    const one = evidence({ tests: { passed: 1, failed: 0, skipped: 0, version: "v1" } });
    expect(judgeFinish(one, all).reasons).toEqual([]);
  });
});

describe("createFinishGate's options", () => {
  const finishOnly = (gate: ReturnType<typeof createFinishGate>, script: unknown[]) =>
    runAgent("修复", replies(...script), world().tools, { maxSteps: 10 }, undefined, {
      extensions: [gate],
      maxFinishRejections: 1,
    });

  it("allows every changed file when no isAllowed is given", async () => {
    const gate = createFinishGate({
      startVersion: "v0",
      inspect: async () => ({ version: "v0+", changedFiles: ["package.json"] }),
    });
    gate.restoreTests({ passed: 2, failed: 0, skipped: 0, version: "v0+" });
    expect((await finishOnly(gate, [finish()])).status).toBe("completed");
  });

  it("takes the evidence a resume restores", async () => {
    const gate = createFinishGate({
      startVersion: "v0",
      inspect: async () => ({ version: "v7", changedFiles: [] }),
    });
    gate.restoreTests({ passed: 1, failed: 0, skipped: 0, version: "v7" });
    expect((await finishOnly(gate, [finish()])).status).toBe("completed");
    expect((await gate.evidence()).tests).toEqual({
      passed: 1,
      failed: 0,
      skipped: 0,
      version: "v7",
    });
  });

  it("takes the version of a test run from versionAfter when given", async () => {
    const gate = createFinishGate({
      startVersion: "v0",
      inspect: async () => ({ version: "now", changedFiles: [] }),
      versionAfter: async (callId) => `after ${callId}`,
    });
    await finishOnly(gate, [call("run_tests", {}), finish()]);
    expect((await gate.evidence()).tests?.version).toBe("after call_1");
  });

  it("asks versionAfter when it judges, so an extension after the gate may record the version", async () => {
    const versions = new Map<string, string>();
    const gate = createFinishGate({
      startVersion: "v0",
      inspect: async () => ({ version: "v1", changedFiles: [] }),
      versionAfter: async (callId) => versions.get(callId) ?? "unknown",
    });
    // Placed after the gate, as the CLI's state recorder is; it also replaces the result.
    const recorder = {
      name: "recorder",
      afterToolCall: async (info: { callId: string }) => {
        versions.set(info.callId, "v1");
        return { kind: "replace" as const, value: { passed: 9, failed: 0, skipped: 0 } };
      },
    };
    const failing = { run_tests: { execute: () => ({ passed: 1, failed: 2, skipped: 0 }) } };
    const result = await runAgent(
      "修复",
      replies(call("run_tests", {}), finish()),
      failing,
      { maxSteps: 5 },
      undefined,
      { extensions: [gate, recorder], maxFinishRejections: 1 },
    );
    expect(result).toMatchObject({ status: "failed", code: "finish_rejected" });
    expect((await gate.evidence()).tests).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      version: "v1",
    });
  });

  it("a restored report replaces one still waiting for its version", async () => {
    const gate = createFinishGate({
      startVersion: "v0",
      inspect: async () => ({ version: "v2", changedFiles: [] }),
      versionAfter: async () => "v1",
    });
    await gate.afterToolCall?.(
      { tool: "run_tests", callId: "call_1", step: 1, input: {} } as never,
      { ok: true, value: { passed: 0, failed: 1, skipped: 0 } },
      new AbortController().signal,
    );
    gate.restoreTests({ passed: 4, failed: 0, skipped: 0, version: "v2" });
    expect((await gate.evidence()).tests).toEqual({
      passed: 4,
      failed: 0,
      skipped: 0,
      version: "v2",
    });
  });

  it("reads a report that leaves out skipped as skipped: 0", async () => {
    const missingSkipped = createFinishGate({
      startVersion: "v0",
      inspect: async () => ({ version: "v0", changedFiles: [] }),
    });
    const counted: ToolSet = { run_tests: { execute: () => ({ passed: 2, failed: 0 }) } };
    await runAgent(
      "修复",
      replies(call("run_tests", {}), finish()),
      counted,
      { maxSteps: 5 },
      undefined,
      {
        extensions: [missingSkipped],
      },
    );
    expect((await missingSkipped.evidence()).tests).toEqual({
      passed: 2,
      failed: 0,
      skipped: 0,
      version: "v0",
    });
  });

  it("fails closed, naming itself, when the workspace cannot be inspected", async () => {
    const gate = createFinishGate({
      startVersion: "v0",
      inspect: async () => {
        throw new Error("EACCES: permission denied");
      },
    });
    const result = await finishOnly(gate, [finish()]);
    expect(result).toMatchObject({ status: "failed", code: "extension_error" });
    expect(result.reason).toContain("finish-gate");
    expect(result.reason).toContain("EACCES");
  });
});
