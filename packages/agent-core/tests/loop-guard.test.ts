import { describe, expect, it } from "vitest";
import type { Action } from "../src/action.ts";
import { InvalidLimitsError } from "../src/errors.ts";
import { createLoopGuard, guardOfRun, parseLimits, tightenLimits } from "../src/loop-guard.ts";

const say = (content: string): Action => ({ type: "message", content });
const read = (path: string, callId?: string): Action => ({
  type: "tool_call",
  tool: "read_file",
  input: { path },
  ...(callId === undefined ? {} : { callId }),
});

describe("createLoopGuard", () => {
  describe("maxSteps", () => {
    it("allows exactly maxSteps model calls", () => {
      const guard = createLoopGuard({ maxSteps: 2 });
      let calls = 0;
      while (!guard.beforeModelCall().stop) {
        calls += 1;
        guard.recordAction(say(`m${calls}`));
      }
      expect(calls).toBe(2);
    });

    it("stops before the first call when maxSteps is 0", () => {
      expect(createLoopGuard({ maxSteps: 0 }).beforeModelCall()).toMatchObject({
        stop: true,
        code: "max_steps",
      });
    });

    it("counts a step only when an action is recorded", () => {
      const guard = createLoopGuard({ maxSteps: 1 });
      guard.recordUsage({ inputTokens: 5, outputTokens: 5 });
      expect(guard.beforeModelCall().stop).toBe(false);
      expect(guard.counters().steps).toBe(0);
    });

    it("gives a reason naming the limit", () => {
      const guard = createLoopGuard({ maxSteps: 1 });
      guard.recordAction(say("a"));
      expect(guard.beforeModelCall()).toEqual({
        stop: true,
        code: "max_steps",
        reason: "已达到最大步数 1",
      });
    });
  });

  describe("maxRepeatedActions", () => {
    it("stops at the second identical message when the limit is 1, with steps 2", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
      expect(guard.recordAction(say("same")).stop).toBe(false);
      expect(guard.recordAction(say("same"))).toMatchObject({
        stop: true,
        code: "repeated_action",
      });
      expect(guard.counters().steps).toBe(2);
    });

    it("allows the limit's number of identical actions in a row", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 2 });
      expect(guard.recordAction(say("same")).stop).toBe(false);
      expect(guard.recordAction(say("same")).stop).toBe(false);
      expect(guard.recordAction(say("same")).stop).toBe(true);
    });

    it("counts only consecutive repeats", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
      for (const content of ["a", "b", "a", "b"])
        expect(guard.recordAction(say(content)).stop).toBe(false);
    });

    it("sees a tool call with a new callId and reordered input as a repeat", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
      guard.recordAction({
        type: "tool_call",
        tool: "t",
        input: { a: 1, b: { c: 2, d: 3 } },
        callId: "1",
      });
      expect(
        guard.recordAction({
          type: "tool_call",
          tool: "t",
          input: { b: { d: 3, c: 2 }, a: 1 },
          callId: "2",
        }).stop,
      ).toBe(true);
    });

    it("sees a reply of several actions as one step that repeats only as a whole", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
      expect(guard.recordAction([read("a.ts"), read("b.ts")]).stop).toBe(false);
      expect(guard.recordAction([read("a.ts")]).stop).toBe(false);
      expect(guard.recordAction(read("a.ts")).stop).toBe(false);
      const verdict = guard.recordAction(read("a.ts"));
      expect(verdict).toMatchObject({ stop: true, code: "repeated_action" });
      expect(guard.steps).toBe(4);
      const batches = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
      batches.recordAction([read("a.ts"), read("b.ts")]);
      expect(batches.recordAction([read("a.ts"), read("b.ts")])).toMatchObject({
        stop: true,
        reason: expect.stringContaining("同一组 2 个动作"),
      });
    });

    it("does not see a tool call with a different input as a repeat", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
      guard.recordAction(read("a.ts"));
      expect(guard.recordAction(read("b.ts")).stop).toBe(false);
    });

    it("never stops on repeats when no limit is set", () => {
      const guard = createLoopGuard({ maxSteps: 10 });
      for (let i = 0; i < 5; i += 1) expect(guard.recordAction(say("same")).stop).toBe(false);
    });
  });

  describe("maxToolCalls", () => {
    it("stops before a tool once the recorded calls reach the limit", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxToolCalls: 1 });
      expect(guard.beforeToolCall().stop).toBe(false);
      guard.recordToolCall();
      expect(guard.beforeToolCall()).toMatchObject({ stop: true, code: "max_tool_calls" });
      expect(guard.counters().toolCalls).toBe(1);
    });

    it("does not count a tool call that was only checked", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxToolCalls: 1 });
      guard.beforeToolCall();
      guard.beforeToolCall();
      expect(guard.beforeToolCall().stop).toBe(false);
    });
  });

  describe("maxToolErrors", () => {
    it("stops on the fifth tool error in a row by default", () => {
      const guard = createLoopGuard({ maxSteps: 10 });
      const verdicts = [1, 2, 3, 4, 5].map(() => guard.recordToolResult(false).stop);
      expect(verdicts).toEqual([false, false, false, false, true]);
      expect(guard.recordToolResult(false)).toMatchObject({ stop: true, code: "max_tool_errors" });
    });

    it("resets the count on a success", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxToolErrors: 2 });
      guard.recordToolResult(false);
      guard.recordToolResult(true);
      expect(guard.recordToolResult(false).stop).toBe(false);
      expect(guard.counters().toolErrors).toBe(1);
      expect(guard.recordToolResult(false)).toMatchObject({
        stop: true,
        code: "max_tool_errors",
        reason: "工具连续 2 次返回错误，达到上限 2",
      });
    });

    it("rejects a limit below one", () => {
      expect(() => createLoopGuard({ maxSteps: 1, maxToolErrors: 0 })).toThrow(/maxToolErrors/);
    });
  });

  describe("maxTokens", () => {
    it("stops before the next call once input plus output tokens reach the budget", () => {
      const guard = createLoopGuard({ maxSteps: 10, maxTokens: 100 });
      guard.recordUsage({ inputTokens: 60, outputTokens: 39 });
      expect(guard.beforeModelCall().stop).toBe(false);
      guard.recordUsage({ inputTokens: 1, outputTokens: 0 });
      expect(guard.beforeModelCall()).toMatchObject({ stop: true, code: "max_tokens" });
      expect(guard.counters().usage).toEqual({ inputTokens: 61, outputTokens: 39 });
    });
  });

  describe("maxDurationMs", () => {
    it("stops before the next call once the injected clock passes the budget", () => {
      let now = 1_000;
      const guard = createLoopGuard({ maxSteps: 10, maxDurationMs: 50 }, { clock: () => now });
      now = 1_049;
      expect(guard.beforeModelCall().stop).toBe(false);
      now = 1_050;
      expect(guard.beforeModelCall()).toMatchObject({ stop: true, code: "max_duration" });
    });

    it("refuses a tool once the budget has run out: it would only be aborted at once", () => {
      let now = 0;
      const guard = createLoopGuard({ maxSteps: 10, maxDurationMs: 50 }, { clock: () => now });
      now = 49;
      expect(guard.beforeToolCall().stop).toBe(false);
      now = 50;
      expect(guard.beforeToolCall()).toMatchObject({
        stop: true,
        code: "max_duration",
        reason: "已运行 50 ms，达到时间预算 50 ms",
      });
    });

    it("tells how much time is left, never less than 0, and nothing without a budget", () => {
      let now = 100;
      const guard = createLoopGuard({ maxSteps: 10, maxDurationMs: 50 }, { clock: () => now });
      expect(guard.remainingMs()).toBe(50);
      now = 130;
      expect(guard.remainingMs()).toBe(20);
      now = 500;
      expect(guard.remainingMs()).toBe(0);
      expect(createLoopGuard({ maxSteps: 1 }).remainingMs()).toBeUndefined();
    });
  });

  it("checks steps before tokens and duration, so the reason names the first budget hit", () => {
    const guard = createLoopGuard({ maxSteps: 1, maxTokens: 1 }, { clock: () => 0 });
    guard.recordUsage({ inputTokens: 5, outputTokens: 5 });
    guard.recordAction(say("a"));
    expect(guard.beforeModelCall()).toMatchObject({ code: "max_steps" });
  });

  it.each([
    [{ maxSteps: -1 }],
    [{ maxSteps: 1.5 }],
    [{ maxSteps: 3, maxRepeatedActions: 0 }],
    [{ maxSteps: 3, maxStep: 3 }],
    [{ maxSteps: 3, modelTimeoutMs: 0 }],
    [{ maxSteps: 3, toolTimeoutMs: -1 }],
    [{}],
  ])("throws InvalidLimitsError for %j", (limits) => {
    expect(() => createLoopGuard(limits as never)).toThrow(InvalidLimitsError);
  });

  it("measures the run's time with the real clock when none is given", async () => {
    // Not a broken clock that stops every run at once: a generous budget goes on.
    expect(createLoopGuard({ maxSteps: 5, maxDurationMs: 60_000 }).beforeModelCall()).toEqual({
      stop: false,
    });
    const guard = createLoopGuard({ maxSteps: 5, maxDurationMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(guard.beforeModelCall()).toMatchObject({ stop: true, code: "max_duration" });
  });

  it("says how many tokens were used and what the budget was", () => {
    const guard = createLoopGuard({ maxSteps: 5, maxTokens: 10 });
    guard.recordUsage({ inputTokens: 7, outputTokens: 5 });
    expect(guard.beforeModelCall()).toEqual({
      stop: true,
      code: "max_tokens",
      reason: "已用 12 个 token，达到预算 10",
    });
  });

  it("names the repeated action's type in the reason", () => {
    const guard = createLoopGuard({ maxSteps: 9, maxRepeatedActions: 1 });
    guard.recordAction(say("同一句"));
    expect(guard.recordAction(say("同一句"))).toMatchObject({
      code: "repeated_action",
      reason: expect.stringContaining("同一个 message 动作"),
    });
  });

  it("reports every invalid limit at once, with zod's error as the cause", () => {
    let caught: unknown;
    try {
      createLoopGuard({ maxSteps: -1, maxTokens: 1.5 } as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidLimitsError);
    const error = caught as InvalidLimitsError;
    expect(error.message).toMatch(/^invalid limits: maxSteps: .+; maxTokens: .+$/);
    expect(error.cause).toBeDefined();
  });

  it("says how many tool calls ran and what the limit was", () => {
    const guard = createLoopGuard({ maxSteps: 9, maxToolCalls: 1 });
    guard.recordToolCall();
    expect(guard.beforeToolCall()).toEqual({
      stop: true,
      code: "max_tool_calls",
      reason: "已执行 1 次工具调用，达到上限 1",
    });
  });

  it("reports the elapsed time since the guard was created", () => {
    let now = 1_000;
    const guard = createLoopGuard({ maxSteps: 9 }, { clock: () => now });
    now = 1_250;
    expect(guard.counters().elapsedMs).toBe(250);
  });
});

describe("the guard of a run (guardOfRun) compares replies by value", () => {
  const runGuard = () => guardOfRun(parseLimits({ maxSteps: 10, maxRepeatedActions: 1 }), () => 0);

  it("sees the same list of actions twice as a repeat", () => {
    const guard = runGuard();
    expect(guard.recordAction([read("a.ts"), read("b.ts")]).stop).toBe(false);
    expect(guard.recordAction([read("a.ts"), read("b.ts")])).toMatchObject({
      stop: true,
      code: "repeated_action",
    });
  });

  it.each([
    [
      "a list that differs in its last action",
      [read("a.ts"), read("b.ts")],
      [read("a.ts"), read("c.ts")],
    ],
    ["a longer list with the same start", [read("a.ts")], [read("a.ts"), read("b.ts")]],
    ["a shorter list with the same start", [read("a.ts"), read("b.ts")], [read("a.ts")]],
    ["one action after a list of that one action", [read("a.ts")], read("a.ts")],
    ["a list of one action after that action alone", read("a.ts"), [read("a.ts")]],
  ])("does not see %s as a repeat", (_name, first, second) => {
    const guard = runGuard();
    guard.recordAction(first);
    expect(guard.recordAction(second).stop).toBe(false);
  });
});

describe("createLoopGuard compares fingerprints", () => {
  it("does not take an action its caller changed after recording it for the same one", () => {
    const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
    const action = { type: "tool_call", tool: "read_file", input: { path: "a.ts" } } as {
      type: "tool_call";
      tool: string;
      input: { path: string };
    };
    guard.recordAction(action);
    action.input.path = "b.ts";
    expect(guard.recordAction(action).stop).toBe(false);
  });
});

describe("tightenLimits", () => {
  it("keeps the caller's limit where a task names a budget without a value", () => {
    expect(
      tightenLimits({ maxSteps: 5, maxToolCalls: 3 }, { maxSteps: undefined, maxToolCalls: 2 }),
    ).toEqual({
      maxSteps: 5,
      maxToolCalls: 2,
    });
  });

  it("takes the task's budget where the caller set none, and the smaller where both did", () => {
    expect(tightenLimits({ maxSteps: 5 }, { maxSteps: 8, maxTokens: 100 })).toEqual({
      maxSteps: 5,
      maxTokens: 100,
    });
  });
});
