import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createLoopDetection,
  defineTool,
  InvalidLimitsError,
  judgeLoopWindow,
  type LoopDetectionOptions,
  type LoopWindowEntry,
  runAgent,
  toolError,
} from "../src/index.ts";
import { createScriptedProvider, type ScriptedTurn } from "../src/testing/index.ts";

const call = (tool: string, input: Record<string, unknown> = {}): ScriptedTurn => ({
  action: { type: "tool_call", tool, input },
});
const finish: ScriptedTurn = { action: { type: "finish", summary: "完成" } };

function run(turns: readonly ScriptedTurn[], options: LoopDetectionOptions, outputs = ["same"]) {
  let calls = 0;
  const tools = {
    probe: defineTool({
      inputSchema: z.object({ n: z.int().optional() }),
      execute: () => outputs[Math.min(calls++, outputs.length - 1)],
    }),
    read_file: defineTool({ inputSchema: z.object({}), execute: () => "content" }),
  };
  return runAgent(
    "任务",
    createScriptedProvider([...turns, finish]),
    tools,
    { maxSteps: 50 },
    undefined,
    {
      extensions: [createLoopDetection(options)],
    },
  );
}

const entry = (tool: string, observation = "same", version = "v1"): LoopWindowEntry => ({
  tool,
  input: "{}",
  observation,
  version,
});

describe("judgeLoopWindow", () => {
  it("stops at a cycle of three come round twice, naming it", () => {
    const round = [entry("list_files"), entry("read_file"), entry("search")];
    const verdict = judgeLoopWindow([...round, ...round]);
    expect(verdict).toEqual({
      stop: true,
      reason: expect.stringContaining("list_files {} → read_file {} → search {}"),
    });
    expect(judgeLoopWindow([...round, ...round.slice(0, 2)]).stop).toBe(false);
  });

  it("counts no repeat at another version, and no stall after something new", () => {
    const atVersions = ["v1", "v2", "v3", "v4"].map((v) => entry("run_tests", "1 failed", v));
    expect(judgeLoopWindow(atVersions).stop).toBe(false);
    const polling = ["0%", "20%", "40%"].flatMap((out) => [entry("cat", out), entry("sleep")]);
    expect(judgeLoopWindow(polling).stop).toBe(false);
  });
});

describe("createLoopDetection", () => {
  it("asks options.judge about every window, oldest call first", async () => {
    const windows: number[] = [];
    const judge = (window: readonly LoopWindowEntry[]) => {
      windows.push(window.length);
      return window.length === 3
        ? { stop: true as const, reason: "第三次" }
        : { stop: false as const };
    };
    const turns = [call("probe", { n: 1 }), call("probe", { n: 2 }), call("probe", { n: 3 })];
    const result = await run(turns, { judge, window: 2 }, ["x"]);
    expect(windows).toEqual([1, 2, 2]);
    expect(result.status).toBe("completed");
    const wide = await run(turns, { judge }, ["x"]);
    expect(wide).toMatchObject({ code: "loop_detected", reason: "第三次", toolCalls: 3 });
  });

  it("names the cycle in the reason", async () => {
    const turns = [call("read_file"), call("probe"), call("read_file"), call("probe")];
    const result = await run(turns, { version: () => "v1" });
    expect(result).toMatchObject({ code: "loop_detected", toolCalls: 4 });
    expect(result.reason).toContain("read_file {} → probe {}");
  });

  it("stops a cycle whose observations repeat, and not one that changes a byte each round", async () => {
    const turns = Array.from({ length: 3 }, () => [call("probe"), call("read_file")]).flat();
    const changing = await run(turns, { version: () => "v" }, ["a0", "a1", "a2"]);
    expect(changing.status).toBe("completed");
    const fixed = await run(turns, { version: () => "v" }, ["a0"]);
    expect(fixed.code).toBe("loop_detected");
  });

  it("counts a repeat at another workspace version as progress", async () => {
    let version = 0;
    const turns = Array.from({ length: 6 }, () => call("probe"));
    const next = () => {
      version += 1;
      return String(version);
    };
    const result = await run(turns, { version: next });
    expect(result.status).toBe("completed");
  });

  it("counts nothing as a repeat while the version getter answers undefined", async () => {
    const turns = Array.from({ length: 6 }, () => call("read_file"));
    const result = await run(turns, { version: () => undefined });
    expect(result.status).toBe("completed");
  });

  it("forgets calls that left the window", async () => {
    const spread = [call("read_file"), call("probe", { n: 1 }), call("probe", { n: 2 })];
    const turns = [...spread, call("read_file"), call("probe", { n: 3 }), call("read_file")];
    const wide = await run(turns, { version: () => "v" }, ["x"]);
    expect(wide.status).toBe("completed");
    const stalled = [call("read_file"), call("read_file"), call("probe", { n: 1 })];
    const repeated = [...stalled, call("read_file"), call("read_file"), call("read_file")];
    expect((await run(repeated, { version: () => "v", window: 12 })).code).toBe("loop_detected");
    expect((await run(repeated, { version: () => "v", window: 2 })).status).toBe("completed");
  });

  it("does not count finishes, rejected or not", async () => {
    const turns = [call("read_file"), finish, call("read_file"), finish, call("read_file")];
    const rejectAll = {
      name: "reject",
      onFinish: () => ({
        kind: "reject" as const,
        reasons: ["no_test_evidence"],
        message: "先跑测试",
      }),
    };
    const result = await runAgent(
      "任务",
      createScriptedProvider([...turns, call("read_file"), finish]),
      { read_file: defineTool({ inputSchema: z.object({}), execute: () => "same" }) },
      { maxSteps: 50 },
      undefined,
      {
        extensions: [createLoopDetection({ version: () => "v" }), rejectAll],
        maxFinishRejections: 10,
      },
    );
    expect(result).toMatchObject({ code: "loop_detected", toolCalls: 4 });
  });

  it("names one call repeated by its count, not as a cycle", async () => {
    const result = await run(
      Array.from({ length: 5 }, () => call("read_file")),
      {
        version: () => "v",
      },
    );
    expect(result).toMatchObject({ code: "loop_detected", toolCalls: 4 });
    expect(result.reason).toBe(
      "检测到循环：最近 4 次工具调用中有 3 次带回与之前完全相同的观察（同一工作区版本）：read_file {}",
    );
  });

  it("finds a cycle after calls that are not part of it", async () => {
    const turns = [call("probe", { n: 1 }), call("read_file"), call("probe")];
    const result = await run([...turns, call("read_file"), call("probe")], { version: () => "v" });
    expect(result).toMatchObject({ code: "loop_detected", toolCalls: 5 });
    expect(result.reason).toContain("read_file {} → probe {}");
  });

  it("sees no cycle in a repeat whose calls before it differ", async () => {
    const turns = [call("read_file"), call("probe", { n: 1 }), call("probe", { n: 2 })];
    const result = await run([...turns, call("read_file"), call("probe", { n: 2 })], {
      version: () => "v",
    });
    expect(result.status).toBe("completed");
  });

  it("stops at the third no-progress call in a window of exactly four calls", async () => {
    const turns = Array.from({ length: 6 }, () => call("read_file"));
    const result = await run(turns, { version: () => "v", window: 4 });
    expect(result).toMatchObject({ code: "loop_detected", toolCalls: 4 });
    expect((await run(turns, { version: () => "v", window: 3 })).status).toBe("completed");
  });

  it("judges a call that never ran by the error the model got", async () => {
    let vetoes = 0;
    const vetoing = (message: () => string) => ({
      name: "veto",
      beforeToolCall: () => ({
        kind: "veto" as const,
        error: { code: "not_allowed", message: message() },
      }),
    });
    const runVetoed = (message: () => string) =>
      runAgent(
        "任务",
        createScriptedProvider([...Array.from({ length: 5 }, () => call("read_file")), finish]),
        { read_file: defineTool({ inputSchema: z.object({}), execute: () => "same" }) },
        { maxSteps: 50, maxToolErrors: 10 },
        undefined,
        { extensions: [createLoopDetection({ version: () => "v" }), vetoing(message)] },
      );
    expect(await runVetoed(() => "不允许")).toMatchObject({ code: "loop_detected" });
    expect((await runVetoed(() => `第 ${++vetoes} 次不允许`)).status).toBe("completed");
  });

  it("counts a tool failing with a new error each time as progress", async () => {
    let failures = 0;
    const failing = defineTool({
      inputSchema: z.object({}),
      execute: () => toolError("not_found", `没有第 ${++failures} 个`),
    });
    const result = await runAgent(
      "任务",
      createScriptedProvider([...Array.from({ length: 5 }, () => call("failing")), finish]),
      { failing },
      { maxSteps: 50, maxToolErrors: 10 },
      undefined,
      { extensions: [createLoopDetection({ version: () => "v" })] },
    );
    expect(result.status).toBe("completed");
  });

  it("quotes at most 60 characters of a call's input in the reason", async () => {
    const note = defineTool({ inputSchema: z.object({ text: z.string() }), execute: () => "ok" });
    const reasonFor = async (text: string) => {
      const turns = Array.from({ length: 4 }, () => call("note", { text }));
      const result = await runAgent(
        "任务",
        createScriptedProvider([...turns, finish]),
        { note },
        { maxSteps: 50 },
        undefined,
        { extensions: [createLoopDetection({ version: () => "v" })] },
      );
      return result.reason;
    };
    // `{"text":""}` is 11 characters: a text of 49 makes the input exactly 60.
    expect(await reasonFor("a".repeat(49))).toMatch(/note \{"text":"a{49}"\}$/);
    expect(await reasonFor("a".repeat(50))).toMatch(/note \{"text":"a{50}"…$/);
  });

  describe("options.maxRepeatedActions", () => {
    it("counts only consecutive repeats whose observation did not change", async () => {
      const turns = Array.from({ length: 4 }, () => call("probe"));
      const changing = await run(turns, { maxRepeatedActions: 1 }, ["1", "2", "3", "4"]);
      expect(changing.status).toBe("completed");
      const same = await run(turns, { maxRepeatedActions: 1, version: () => "v" });
      expect(same).toMatchObject({ code: "repeated_action", steps: 2, toolCalls: 2 });
      expect(same.reason).toContain("观察没有变化");
    });

    it("stops at the repeated message itself (a message brings back nothing)", async () => {
      const message = { action: { type: "message", content: "同一句" } };
      const result = await run([message, message, message], { maxRepeatedActions: 1 });
      expect(result).toMatchObject({ code: "repeated_action", steps: 2, toolCalls: 0 });
    });

    it("names a repeated reply of several actions as a group", async () => {
      const pair: ScriptedTurn = {
        actions: [
          { type: "tool_call", tool: "read_file", input: {} },
          { type: "tool_call", tool: "probe", input: { n: 1 } },
        ],
      };
      const result = await run([pair, pair, pair], {
        maxRepeatedActions: 1,
        version: () => "v",
        window: 2,
      });
      expect(result.code).toBe("repeated_action");
      expect(result.reason).toContain("同一组 2 个动作连续出现 2 次");
    });

    it("names a repeated single action by its type", async () => {
      const message = { action: { type: "message", content: "同一句" } };
      const result = await run([message, message], { maxRepeatedActions: 1 });
      expect(result.reason).toBe("同一个 message 动作连续出现 2 次且观察没有变化，超过上限 1");
    });

    it("neither counts a rejected finish nor lets it break a repeat", async () => {
      const rejectAll = {
        name: "reject",
        onFinish: () => ({
          kind: "reject" as const,
          reasons: ["no_test_evidence"],
          message: "先跑测试",
        }),
      };
      const turns = [finish, finish, call("read_file"), finish, call("read_file"), finish];
      const result = await runAgent(
        "任务",
        createScriptedProvider(turns),
        { read_file: defineTool({ inputSchema: z.object({}), execute: () => "same" }) },
        { maxSteps: 50 },
        undefined,
        {
          extensions: [
            createLoopDetection({ maxRepeatedActions: 1, version: () => "v" }),
            rejectAll,
          ],
          maxFinishRejections: 10,
        },
      );
      expect(result).toMatchObject({ code: "repeated_action", toolCalls: 2 });
    });

    it("reports loop_detected when both rules stop at the same call", async () => {
      const turns = Array.from({ length: 6 }, () => call("read_file"));
      const result = await run(turns, { maxRepeatedActions: 3, version: () => "v" });
      expect(result).toMatchObject({ code: "loop_detected", toolCalls: 4 });
    });
  });

  it.each([
    [{ window: 1 }, "loop window"],
    [{ window: 2.5 }, "loop window"],
    [{ maxRepeatedActions: 0 }, "maxRepeatedActions"],
  ])("refuses invalid options %j", (options, text) => {
    expect(() => createLoopDetection(options)).toThrow(InvalidLimitsError);
    expect(() => createLoopDetection(options)).toThrow(text);
  });
});
