/**
 * Time limits of a run: `maxDurationMs` (the whole run, now also enforced while a
 * call is in flight) and the per-call `modelTimeoutMs` / `toolTimeoutMs`. Fake
 * timers drive every wait, so these tests assert outcomes, never speed.
 */
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import { InvalidLimitsError } from "../src/errors.ts";
import type { Limits } from "../src/loop-guard.ts";
import type { Message } from "../src/messages.ts";
import type { Provider } from "../src/provider.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { Tool, ToolSet } from "../src/tools.ts";

const finish = { type: "finish", summary: "完成" };
const call = (tool: string, input: Record<string, unknown> = {}) => ({
  type: "tool_call",
  tool,
  input,
});
const replies = (...actions: unknown[]) =>
  createScriptedProvider(actions.map((action) => ({ action })));

/** A provider whose every call waits for its signal and ignores nothing else. */
function stuckProvider() {
  const signals: AbortSignal[] = [];
  const provider: Provider = {
    complete(_request, signal) {
      signals.push(signal);
      return new Promise((_, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
  };
  return { provider, signals };
}

/** A tool that takes `ms` (fake) milliseconds and stops when its signal fires. */
function slowTool(ms: number) {
  const signals: AbortSignal[] = [];
  let finished = 0;
  const tool: Tool = {
    execute(_input, signal) {
      signals.push(signal);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          finished += 1;
          resolve("done");
        }, ms);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
  };
  return {
    tool,
    signals,
    get finished() {
      return finished;
    },
  };
}

/** A tool that never settles and ignores its signal. */
const deafTool: Tool = { execute: () => new Promise(() => {}) };

function toolMessages(messages: readonly Message[]) {
  return messages.filter((message) => message.role === "tool");
}

/** Runs to the end, moving fake time forward until the run settles. */
async function runToEnd(...args: Parameters<typeof runAgent>) {
  let settled = false;
  const pending = runAgent(...args).finally(() => {
    settled = true;
  });
  for (let round = 0; round < 1_000 && !settled; round += 1) {
    await vi.advanceTimersByTimeAsync(10);
  }
  return pending;
}

/** Runs `actions` with one tool, `slow` (a `slowTool(toolMs)`), under `limits`. */
async function runSlow(
  toolMs: number,
  limits: Limits,
  actions: unknown[] = [call("slow"), finish],
) {
  const slow = slowTool(toolMs);
  const provider = replies(...actions);
  const result = await runToEnd("任务", provider, { slow: slow.tool }, limits);
  return { result, slow, provider };
}

/** `n` calls of the slow tool, then finish. */
const slowCalls = (n: number) => [...Array.from({ length: n }, () => call("slow")), finish];

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("maxDurationMs while a call is in flight", () => {
  it("aborts a model call still running when the run's time is up: budget_exceeded / max_duration", async () => {
    const { provider, signals } = stuckProvider();
    const result = await runToEnd("任务", provider, {}, { maxSteps: 5, maxDurationMs: 1_000 });
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration", steps: 0 });
    expect(result.reason).toContain("1000 ms");
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted, "the model call's own signal must fire").toBe(true);
  });

  it("aborts a tool still running when the run's time is up and answers its call", async () => {
    const { result, slow, provider } = await runSlow(60_000, { maxSteps: 5, maxDurationMs: 1_000 });
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration", toolCalls: 1 });
    expect(slow.signals[0]?.aborted).toBe(true);
    expect(slow.finished).toBe(0);
    const [answer] = toolMessages(result.messages);
    expect(answer).toMatchObject({ ok: false, error: { code: "max_duration" } });
    expect(provider.requests).toHaveLength(1);
  });

  it("stops a tool that ignores its signal too: the run is not kept waiting", async () => {
    const provider = replies(call("deaf"), finish);
    const result = await runToEnd(
      "任务",
      provider,
      { deaf: deafTool },
      {
        maxSteps: 5,
        maxDurationMs: 500,
      },
    );
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
  });

  it("names the run's deadline, not the call's timeout, when the deadline comes first", async () => {
    const { result } = await runSlow(60_000, {
      maxSteps: 5,
      maxDurationMs: 300,
      toolTimeoutMs: 5_000,
    });
    expect(result.code).toBe("max_duration");
  });

  it("names the call's timeout when it comes before the run's deadline", async () => {
    const { result } = await runSlow(60_000, {
      maxSteps: 5,
      maxDurationMs: 10_000,
      toolTimeoutMs: 100,
    });
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(toolMessages(result.messages)[0]).toMatchObject({ error: { code: "timeout" } });
  });

  it("names the run's deadline on a tie: the run is over either way", async () => {
    // A clock that stands still makes the time left exactly maxDurationMs when the tool starts.
    const slow = slowTool(60_000);
    const limits: Limits = { maxSteps: 5, maxDurationMs: 200, toolTimeoutMs: 200 };
    const result = await runToEnd(
      "任务",
      replies(call("slow"), finish),
      { slow: slow.tool },
      limits,
      undefined,
      {
        clock: () => 0,
      },
    );
    expect(result.code).toBe("max_duration");
  });

  it("lets calls that end within the run's remaining time through", async () => {
    const { result, slow } = await runSlow(
      50,
      { maxSteps: 10, maxDurationMs: 1_000 },
      slowCalls(3),
    );
    expect(result).toMatchObject({ status: "completed", toolCalls: 3 });
    expect(slow.finished).toBe(3);
  });

  it("stops a run of many short calls that each stay within their own timeout", async () => {
    const limits: Limits = { maxSteps: 100, toolTimeoutMs: 100, maxDurationMs: 500 };
    const { result } = await runSlow(40, limits, slowCalls(50));
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
    expect(toolMessages(result.messages).filter((m) => m.ok === false).length).toBeLessThanOrEqual(
      1,
    );
    expect(result.toolCalls).toBeLessThan(50);
  });

  it("without maxDurationMs, the same short calls all run and the run completes", async () => {
    const { result, slow } = await runSlow(
      40,
      { maxSteps: 100, toolTimeoutMs: 100 },
      slowCalls(50),
    );
    expect(result).toMatchObject({ status: "completed", toolCalls: 50 });
    expect(slow.finished).toBe(50);
  });
});

describe("modelTimeoutMs", () => {
  it("aborts a model call slower than modelTimeoutMs and ends the run budget_exceeded / model_timeout", async () => {
    const { provider, signals } = stuckProvider();
    const result = await runToEnd("任务", provider, {}, { maxSteps: 5, modelTimeoutMs: 200 });
    expect(result).toMatchObject({ status: "budget_exceeded", code: "model_timeout", steps: 0 });
    expect(result.reason).toContain("modelTimeoutMs");
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toHaveProperty("name", "TimeoutError");
    expect(signals[0]?.reason).toHaveProperty("message", "调用超过 200 ms");
  });

  it("lets a model call that answers in time through, and each call gets its own timeout", async () => {
    const provider = createScriptedProvider([
      { action: { type: "message", content: "a" }, delayMs: 150 },
      { action: { type: "message", content: "b" }, delayMs: 150 },
      { action: finish, delayMs: 150 },
    ]);
    const result = await runToEnd("任务", provider, {}, { maxSteps: 5, modelTimeoutMs: 200 });
    expect(result).toMatchObject({ status: "completed", steps: 3 });
  });

  it("applies a task's tighter modelTimeoutMs", async () => {
    const provider = createScriptedProvider([{ action: finish, delayMs: 150 }]);
    const task = { goal: "任务", budgets: { modelTimeoutMs: 100 } };
    const result = await runToEnd(task, provider, {}, { maxSteps: 5, modelTimeoutMs: 1_000 });
    expect(result.code).toBe("model_timeout");
  });
});

describe("toolTimeoutMs", () => {
  it("aborts a slow tool and writes a timeout error back; the run goes on and completes", async () => {
    const { result, slow, provider } = await runSlow(60_000, { maxSteps: 5, toolTimeoutMs: 200 });
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(slow.signals[0]?.aborted, "the tool's own signal must fire").toBe(true);
    expect(slow.signals[0]?.reason).toHaveProperty("name", "TimeoutError");
    expect(slow.finished).toBe(0);
    const [answer] = toolMessages(result.messages);
    expect(answer).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(answer?.ok === false && answer.error.message).toContain("toolTimeoutMs");
    // The model saw the timeout before it finished.
    const seen = provider.requests[1]?.messages.at(-1);
    expect(seen).toMatchObject({ role: "tool", ok: false, error: { code: "timeout" } });
  });

  it("stops a tool that ignores its signal: the model gets the timeout anyway", async () => {
    const provider = replies(call("deaf"), finish);
    const result = await runToEnd(
      "任务",
      provider,
      { deaf: deafTool },
      {
        maxSteps: 5,
        toolTimeoutMs: 200,
      },
    );
    expect(result.status).toBe("completed");
    expect(toolMessages(result.messages)[0]).toMatchObject({ error: { code: "timeout" } });
  });

  it("counts timeouts as tool errors: maxToolErrors in a row end the run", async () => {
    const { result } = await runSlow(
      60_000,
      { maxSteps: 5, toolTimeoutMs: 100, maxToolErrors: 2 },
      [call("slow"), call("slow"), finish],
    );
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_tool_errors" });
  });

  it("lets a tool that answers in time through", async () => {
    const { result } = await runSlow(50, { maxSteps: 5, toolTimeoutMs: 200 });
    expect(toolMessages(result.messages)[0]).toMatchObject({ ok: true, content: "done" });
  });
});

describe("timed calls leave nothing behind", () => {
  it("clears every timer once the run ends: nothing fires later", async () => {
    const slow = slowTool(10);
    const provider = replies(call("slow"), finish);
    const limits: Limits = {
      maxSteps: 5,
      maxDurationMs: 60_000,
      modelTimeoutMs: 30_000,
      toolTimeoutMs: 30_000,
    };
    const result = await runToEnd("任务", provider, { slow: slow.tool }, limits);
    expect(result.status).toBe("completed");
    expect(vi.getTimerCount(), "a timer outlived the run").toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(slow.signals[0]?.aborted, "a finished call's signal fired later").toBe(false);
  });

  it("passes the caller's cancel on to the call in flight, with the caller's reason", async () => {
    const controller = new AbortController();
    const { provider, signals } = stuckProvider();
    const pending = runAgent(
      "任务",
      provider,
      {},
      { maxSteps: 5, modelTimeoutMs: 10_000 },
      controller.signal,
    );
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error("用户取消"));
    const result = await pending;
    expect(result).toMatchObject({ status: "cancelled", code: "cancelled" });
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toHaveProperty("message", "用户取消");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps no abort listener per call on the caller's signal", async () => {
    const controller = new AbortController();
    const counts: number[] = [];
    const tools: ToolSet = {
      t: {
        execute: () => {
          counts.push(getEventListeners(controller.signal, "abort").length);
          return "ok";
        },
      },
    };
    const script = [...Array.from({ length: 20 }, (_, n) => call("t", { n })), finish];
    const limits: Limits = { maxSteps: 50, toolTimeoutMs: 1_000, modelTimeoutMs: 1_000 };
    const result = await runToEnd("任务", replies(...script), tools, limits, controller.signal);
    expect(result.status).toBe("completed");
    expect(Math.max(...counts)).toBeLessThanOrEqual(2);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("limits", () => {
  it.each([
    ["modelTimeoutMs", { modelTimeoutMs: 0 }],
    ["toolTimeoutMs", { toolTimeoutMs: 0 }],
    ["toolTimeoutMs", { toolTimeoutMs: 1.5 }],
  ] as const)("rejects a %s that is not a positive integer", async (_, limit) => {
    await expect(runAgent("任务", replies(finish), {}, { maxSteps: 1, ...limit })).rejects.toThrow(
      InvalidLimitsError,
    );
  });
});
