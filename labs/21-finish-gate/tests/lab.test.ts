import {
  createFinishGate,
  type FinishEvidence,
  type Message,
  runAgent,
  type ToolSet,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { judgeFinish } from "@lab";
import { describe, expect, it } from "vitest";

const everything = () => true;
const onlySrc = (file: string) => file.startsWith("src/");
const passing = { passed: 4, failed: 0, skipped: 1, version: "v2" };
const evidence = (overrides: Partial<FinishEvidence> = {}): FinishEvidence => ({
  startVersion: "v1",
  endVersion: "v2",
  tests: passing,
  changedFiles: ["src/sum.js"],
  ...overrides,
});

describe("judgeFinish", () => {
  it("accepts fresh passing tests with every change allowed, and says nothing", () => {
    expect(judgeFinish(evidence(), onlySrc)).toEqual({ reasons: [], message: "" });
  });

  it("rejects a finish with no test run as no_test_evidence", () => {
    expect(
      judgeFinish(evidence({ tests: null }), everything).reasons,
      "从没运行 run_tests",
    ).toEqual(["no_test_evidence"]);
  });

  it("rejects passing tests from an older version of the workspace as stale_test_evidence", () => {
    const old = { ...passing, version: "v1" };
    expect(
      judgeFinish(evidence({ tests: old }), everything).reasons,
      "测试在 v1，工作区已是 v2",
    ).toEqual(["stale_test_evidence"]);
    const oldFailing = { ...old, passed: 0, failed: 2 };
    expect(
      judgeFinish(evidence({ tests: oldFailing }), everything).reasons,
      "过期的失败结果：要的是重新运行，不是去修那两个失败",
    ).toEqual(["stale_test_evidence"]);
  });

  it("rejects failing tests, and a run in which nothing passed, as tests_failing", () => {
    for (const [name, tests] of [
      ["失败 1 个", { ...passing, failed: 1 }],
      ["全部跳过（passed 为 0）", { ...passing, passed: 0, skipped: 5 }],
      ["一个测试都没有", { ...passing, passed: 0, skipped: 0 }],
    ] as const) {
      expect(judgeFinish(evidence({ tests }), everything).reasons, name).toEqual(["tests_failing"]);
    }
  });

  it("judges a run whose counts could not be read by its exit status: 0 passes, anything else is tests_failing", () => {
    const exitStatus = (exitCode: number | null, version = "v2") => ({
      passed: null,
      failed: null,
      skipped: null,
      report: "exit_code" as const,
      exitCode,
      version,
    });
    expect(
      judgeFinish(evidence({ tests: exitStatus(0) }), everything),
      "整个测试命令以 0 退出（个数未知）",
    ).toEqual({ reasons: [], message: "" });
    for (const [name, exitCode] of [
      ["测试命令以退出码 1 结束", 1],
      ["测试命令被信号终止（退出码 null）", null],
    ] as const) {
      expect(
        judgeFinish(evidence({ tests: exitStatus(exitCode) }), everything).reasons,
        name,
      ).toEqual(["tests_failing"]);
    }
    expect(
      judgeFinish(evidence({ tests: exitStatus(0, "v1") }), everything).reasons,
      "以 0 退出，但那是 v1 的结果",
    ).toEqual(["stale_test_evidence"]);
  });

  it("rejects changes outside the allowed paths, as well as the test reason", () => {
    const verdict = judgeFinish(
      evidence({ tests: null, changedFiles: ["src/sum.js", "package.json", ".github/ci.yml"] }),
      onlySrc,
    );
    expect(verdict.reasons, "没有测试，且改了 package.json").toEqual([
      "no_test_evidence",
      "changes_outside_allowed_paths",
    ]);
    expect(verdict.message, "说明里点名越界的文件").toContain("package.json");
    expect(verdict.message, "说明里点名越界的文件").toContain(".github/ci.yml");
    expect(verdict.message, "允许的文件不算越界").not.toContain("src/sum.js");
  });

  it("tells the model in Chinese what is missing, one line per reason", () => {
    const verdict = judgeFinish(evidence({ tests: null, changedFiles: ["package.json"] }), onlySrc);
    const lines = verdict.message.split("\n");
    expect(lines, "两个原因两行").toHaveLength(2);
    expect(lines[0], "第一行说要运行测试").toContain("run_tests");
    for (const line of lines) expect(line, "说明是中文").toMatch(/[\u4e00-\u9fff]/);
  });
});

/** A workspace whose version the edit moves, and a run_tests that fails before the fix. */
function world() {
  const state = { version: "v1", changed: [] as string[] };
  const tools: ToolSet = {
    edit_file: {
      execute: () => {
        state.version = "v2";
        state.changed = ["src/sum.js"];
        return { ok: true };
      },
    },
    run_tests: {
      execute: () =>
        state.version === "v1"
          ? { passed: 0, failed: 1, skipped: 0, failures: [], exitCode: 1 }
          : { passed: 1, failed: 0, skipped: 0, failures: [], exitCode: 0 },
    },
  };
  const gate = createFinishGate({
    startVersion: "v1",
    inspect: async () => ({ version: state.version, changedFiles: state.changed }),
    isAllowed: onlySrc,
    judge: judgeFinish,
  });
  return { tools, gate };
}

const call = (tool: string) => ({ action: { type: "tool_call", tool, input: {} } });
const finish = { action: { type: "finish", summary: "修好了，测试全部通过" } };
const reasonsOf = (messages: readonly Message[]) =>
  messages.flatMap((m) => (m.role === "user" && "type" in m ? [m.reasons] : []));

describe("judgeFinish inside runAgent", () => {
  it("rejects a finish with no, failing and stale tests, and accepts after fresh passing ones", async () => {
    const { tools, gate } = world();
    const script = [
      finish,
      call("run_tests"),
      finish,
      call("edit_file"),
      finish,
      call("run_tests"),
      finish,
    ];
    const result = await runAgent(
      "修复 sum",
      createScriptedProvider(script),
      tools,
      { maxSteps: 10 },
      undefined,
      {
        extensions: [gate],
        maxFinishRejections: 4,
      },
    );
    expect(reasonsOf(result.messages), "三次拒绝的原因").toEqual([
      ["no_test_evidence"],
      ["tests_failing"],
      ["stale_test_evidence"],
    ]);
    expect(result.status, "新鲜的通过结果之后才完成").toBe("completed");
  });

  it("ends the run failed / finish_rejected at the third rejection", async () => {
    const { tools, gate } = world();
    const result = await runAgent(
      "修复 sum",
      createScriptedProvider([finish, finish, finish, finish]),
      tools,
      { maxSteps: 10 },
      undefined,
      { extensions: [gate] },
    );
    expect({ status: result.status, code: result.code }, "模型只会说完成").toEqual({
      status: "failed",
      code: "finish_rejected",
    });
  });
});
