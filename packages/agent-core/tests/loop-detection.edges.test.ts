import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createLoopDetection,
  defineTool,
  judgeLoopWindow,
  type LoopWindowEntry,
  READ_ONLY_TOOLS,
  runAgent,
} from "../src/index.ts";
import { createScriptedProvider, type ScriptedTurn } from "../src/testing/index.ts";

/** Edges of loop detection the main test file leaves out: each names what it guards. */

const entry = (tool: string, input = "{}", observation = "same"): LoopWindowEntry => ({
  tool,
  input,
  observation,
  version: "v1",
});
const A = entry("read_file", '{"path":"a"}');
const B = entry("read_file", '{"path":"b"}');

describe("judgeLoopWindow, edges", () => {
  it("ends a stall with a call that brings something new, however many stalled before", () => {
    expect(judgeLoopWindow([A, A, A, A, entry("read_file", '{"path":"c"}')])).toEqual({
      stop: false,
    });
  });

  it("answers exactly { stop: false } below three calls without progress", () => {
    expect(judgeLoopWindow([A, A, A])).toEqual({ stop: false });
  });

  it("takes one tool with two inputs in turns for a cycle", () => {
    expect(judgeLoopWindow([A, B, A, B])).toEqual({
      stop: true,
      reason: `检测到循环：read_file {"path":"a"} → read_file {"path":"b"} 已连续出现 2 轮，观察没有任何变化（同一工作区版本）`,
    });
  });

  it("names each stalled call once, separated by 、", () => {
    const verdict = judgeLoopWindow([A, A, B, B, B]);
    expect(verdict).toEqual({
      stop: true,
      reason: `检测到循环：最近 5 次工具调用中有 3 次带回与之前完全相同的观察（同一工作区版本）：read_file {"path":"a"}、read_file {"path":"b"}`,
    });
  });
});

describe("createLoopDetection, edges", () => {
  const call = (tool: string, input: Record<string, unknown> = {}): ScriptedTurn => ({
    action: { type: "tool_call", tool, input },
  });
  const finish: ScriptedTurn = { action: { type: "finish", summary: "完成" } };
  const runWith = (turns: readonly ScriptedTurn[]) => {
    const same = () => "same";
    const tools = Object.fromEntries(
      ["echo", "sleep", "read_artifact", "write_note"].map((name) => [
        name,
        defineTool({ inputSchema: z.object({ n: z.int().optional() }), execute: same }),
      ]),
    );
    return runAgent(
      "任务",
      createScriptedProvider([...turns, finish]),
      tools,
      { maxSteps: 50, maxToolErrors: 50 },
      undefined,
      { extensions: [createLoopDetection({})] },
    );
  };

  it("names itself, so an extension failure names loop detection", () => {
    expect(createLoopDetection({}).name).toBe("loop-detection");
  });

  it("takes echo, sleep and read_artifact for read-only without a version getter", async () => {
    expect(READ_ONLY_TOOLS).toEqual([
      "echo",
      "sleep",
      "read_file",
      "list_files",
      "search",
      "read_artifact",
    ]);
    for (const tool of ["echo", "sleep", "read_artifact"]) {
      const result = await runWith(Array.from({ length: 6 }, () => call(tool)));
      expect(result, tool).toMatchObject({ code: "loop_detected", toolCalls: 4 });
    }
    // A tool that may write moves the version on: the same answer is news each time.
    const writes = await runWith(Array.from({ length: 6 }, () => call("write_note")));
    expect(writes.status).toBe("completed");
  });

  it("judges a call that never ran by its result in the history", async () => {
    // `n` must be an integer: every call is refused invalid_input, the same text each time.
    const result = await runWith(Array.from({ length: 6 }, () => call("echo", { n: "x" })));
    // Refused calls are not tool calls; the fourth refusal is the third with nothing new.
    expect(result).toMatchObject({ code: "loop_detected", toolCalls: 0 });
    const errors = result.messages.filter((m) => m.role === "tool" && !m.ok);
    expect(errors).toHaveLength(4);
  });
});
