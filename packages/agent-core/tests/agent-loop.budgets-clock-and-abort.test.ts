/**
 * Budgets combined with a task's own budgets, the default clock, the run's abort
 * listeners, an AbortError from a tool while the run goes on, and the fields of
 * model_completed.
 */
import { describe, expect, it, vi } from "vitest";
import { createAbortRace, settle } from "../src/abortable.ts";
import { runAgent } from "../src/agent-loop.ts";
import { AbortError } from "../src/errors.ts";
import { createLoopGuard, type Limits } from "../src/loop-guard.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";

const call = (n: number) => ({ type: "tool_call", tool: "t", input: { n } });
const say = (content: string) => ({ type: "message", content });
const finish = { type: "finish", summary: "ok" };
const tools: ToolSet = { t: { execute: () => "ok" } };

/** One budget at a time, with a script that runs into it, and the code it stops with. */
const EACH_BUDGET = [
  ["maxToolCalls", { maxToolCalls: 1 }, [call(1), call(2), finish], "max_tool_calls"],
  [
    "maxRepeatedActions",
    { maxRepeatedActions: 1 },
    [say("x"), say("x"), finish],
    "repeated_action",
  ],
  ["maxTokens", { maxTokens: 10 }, [say("a"), say("b"), finish], "max_tokens"],
  ["maxDurationMs", { maxDurationMs: 0 }, [say("a"), finish], "max_duration"],
] as const;

const scripted = (actions: readonly unknown[]) =>
  createScriptedProvider(
    actions.map((action) => ({ action, usage: { inputTokens: 10, outputTokens: 0 } })),
  );

describe("a task's budgets keep the caller's other limits", () => {
  it.each(EACH_BUDGET)("still applies the caller's %s", async (_, limit, actions, code) => {
    const limits: Limits = { maxSteps: 10, ...limit };
    const budgets = { maxSteps: 50 };
    const result = await runAgent({ goal: "任务", budgets }, scripted(actions), tools, limits);
    expect(result.code).toBe(code);
  });

  it.each(EACH_BUDGET)("applies the task's own %s", async (_, budget, actions, code) => {
    const result = await runAgent({ goal: "任务", budgets: budget }, scripted(actions), tools, {
      maxSteps: 10,
    });
    expect(result.code).toBe(code);
  });
});

describe("the default clock", () => {
  it("lets maxDurationMs fire without an injected clock", async () => {
    const result = await runAgent(
      "任务",
      createScriptedProvider([{ action: finish }]),
      {},
      { maxSteps: 5, maxDurationMs: 0 },
    );
    expect(result.code).toBe("max_duration");
    expect(createLoopGuard({ maxSteps: 5, maxDurationMs: 0 }).beforeModelCall()).toMatchObject({
      stop: true,
      code: "max_duration",
    });
  });

  it("stamps trace events with real, growing times", async () => {
    const events: TraceEvent[] = [];
    await runAgent(
      "任务",
      createScriptedProvider([{ action: finish }]),
      {},
      { maxSteps: 5 },
      undefined,
      {
        trace: (event) => void events.push(event),
      },
    );
    const times = events.map((event) => event.atMs);
    expect(times.every((time) => Number.isFinite(time) && time >= 0)).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});

describe("abort listeners", () => {
  it("settle on an already aborted signal does not call and answers aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const work = vi.fn(() => "x");
    await expect(settle(work, controller.signal)).resolves.toEqual({ kind: "aborted" });
    await expect(createAbortRace(controller.signal).settle(work)).resolves.toEqual({
      kind: "aborted",
    });
    expect(work).not.toHaveBeenCalled();
  });

  it("settle removes its listener once the call ends", async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, "removeEventListener");
    const add = vi.spyOn(controller.signal, "addEventListener");
    await expect(settle(async () => 1, controller.signal)).resolves.toEqual({
      kind: "value",
      value: 1,
    });
    expect(remove).toHaveBeenCalledWith("abort", add.mock.calls[0]?.[1]);
  });

  it("a run adds one abort listener however many steps it takes, and removes it at the end", async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, "addEventListener");
    const remove = vi.spyOn(controller.signal, "removeEventListener");
    const provider = createScriptedProvider([
      { action: call(1) },
      { action: call(2) },
      { action: call(3) },
      { action: finish },
    ]);
    const result = await runAgent("任务", provider, tools, { maxSteps: 10 }, controller.signal);
    expect(result.status).toBe("completed");
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledTimes(1);
    expect(remove.mock.calls[0]?.[1]).toBe(add.mock.calls[0]?.[1]);
  });

  it("a race resolves the pending call as aborted when the signal fires, and ignores its late value", async () => {
    const controller = new AbortController();
    const race = createAbortRace(controller.signal);
    let finishCall: (value: string) => void = () => {};
    const pending = race.settle(() => new Promise<string>((resolve) => (finishCall = resolve)));
    controller.abort();
    finishCall("late");
    await expect(pending).resolves.toEqual({ kind: "aborted" });
    race.dispose();
  });

  it("a race reports a synchronous throw and a rejection as errors", async () => {
    const race = createAbortRace(new AbortController().signal);
    const boom = new Error("boom");
    await expect(
      race.settle(() => {
        throw boom;
      }),
    ).resolves.toEqual({ kind: "error", error: boom });
    await expect(race.settle(() => Promise.reject(boom))).resolves.toEqual({
      kind: "error",
      error: boom,
    });
    race.dispose();
  });
});

describe("an AbortError from a tool while the run is not aborted", () => {
  it("ends the run cancelled (an abort is never reported as a tool failure)", async () => {
    const controller = new AbortController();
    const aborting: ToolSet = {
      t: {
        execute: () => {
          throw new AbortError("the tool gave up");
        },
      },
    };
    const provider = createScriptedProvider([{ action: call(1) }, { action: finish }]);
    const result = await runAgent("任务", provider, aborting, { maxSteps: 5 }, controller.signal);
    expect(controller.signal.aborted).toBe(false);
    expect(result).toMatchObject({ status: "cancelled", code: "cancelled", toolCalls: 1 });
    expect(provider.requests).toHaveLength(1);
  });
});

describe("model_completed", () => {
  it("carries ok, the action type and the usage of a valid reply, and ok: false for a bad one", async () => {
    const events: TraceEvent[] = [];
    const usage = { inputTokens: 7, outputTokens: 3 };
    await runAgent(
      "任务",
      createScriptedProvider([{ action: say("hi"), usage }, { action: { type: "nope" } }]),
      {},
      { maxSteps: 5 },
      undefined,
      { trace: (event) => void events.push(event) },
    );
    const completed = events.filter((event) => event.type === "model_completed");
    expect(completed[0]).toMatchObject({ ok: true, actionType: "message", usage });
    expect(completed[1]).toMatchObject({ ok: false });
    expect(completed[1]).not.toHaveProperty("usage");
  });
});
