import { getEventListeners } from "node:events";
import { createLoopGuard, runAgent, type Tool } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { CallTimeoutError, withTimeout, withToolTimeout } from "@lab";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// Every wait here is on fake timers: the tests move time forward themselves and
// check what happened, never how fast it happened.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Work that takes `ms` (fake) milliseconds; it stops when its signal fires, rejecting with the reason. */
function slowWork(ms: number) {
  const state = { started: 0, finished: 0, signals: [] as AbortSignal[] };
  const call = (signal: AbortSignal) => {
    state.started += 1;
    state.signals.push(signal);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        state.finished += 1;
        resolve("完成");
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
  };
  return { call, state };
}

/** Follows a promise without awaiting it, so a test can look at it while it is still pending. */
function track<T>(promise: Promise<T>) {
  const seen: { status: "pending" | "fulfilled" | "rejected"; value?: T; error?: unknown } = {
    status: "pending",
  };
  promise.then(
    (value) => {
      seen.status = "fulfilled";
      seen.value = value;
    },
    (error: unknown) => {
      seen.status = "rejected";
      seen.error = error;
    },
  );
  return seen;
}

const never = new AbortController().signal;

describe("withTimeout", () => {
  it("passes through the value of a call that ends in time", async () => {
    const work = slowWork(50);
    const seen = track(withTimeout(work.call, 100));
    await vi.advanceTimersByTimeAsync(50);
    expect(seen).toMatchObject({ status: "fulfilled", value: "完成" });
  });

  it("passes through the error of a call that fails in time", async () => {
    const boom = new Error("磁盘满了");
    const seen = track(withTimeout(() => Promise.reject(boom), 100));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toMatchObject({ status: "rejected", error: boom });
  });

  it("rejects with CallTimeoutError once ms have passed", async () => {
    const work = slowWork(60_000);
    const seen = track(withTimeout(work.call, 100));
    await vi.advanceTimersByTimeAsync(100);
    expect(seen.status, "100 ms 到了，慢调用应当以超时结束").toBe("rejected");
    expect(seen.error).toBeInstanceOf(CallTimeoutError);
    expect(seen.error).toMatchObject({ name: "TimeoutError", ms: 100 });
  });

  it("aborts the call's own signal when the time is up, so the slow work stops", async () => {
    const work = slowWork(60_000);
    track(withTimeout(work.call, 100));
    await vi.advanceTimersByTimeAsync(100);
    const signal = work.state.signals[0];
    expect(signal?.aborted, "超时后调用自己的 signal 应当被中止").toBe(true);
    expect(signal?.reason).toBeInstanceOf(CallTimeoutError);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(work.state.finished, "被中止的慢调用不应当继续跑完").toBe(0);
  });

  it("does not wait for a call that ignores its signal", async () => {
    const seen = track(withTimeout(() => new Promise<never>(() => {}), 100));
    await vi.advanceTimersByTimeAsync(100);
    expect(seen.status, "调用不理 signal 也不能让调用方一直等").toBe("rejected");
    expect(seen.error).toBeInstanceOf(CallTimeoutError);
  });

  it("clears its timer once the call ends: nothing fires later", async () => {
    const work = slowWork(10);
    const seen = track(withTimeout(work.call, 1_000));
    await vi.advanceTimersByTimeAsync(10);
    expect(seen.status).toBe("fulfilled");
    expect(vi.getTimerCount(), "调用结束后计时器还在").toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(work.state.signals[0]?.aborted, "已经结束的调用，signal 不应当事后被中止").toBe(false);
  });

  it("passes the outer signal's abort on to the call, with the outer reason", async () => {
    const outer = new AbortController();
    const work = slowWork(60_000);
    const seen = track(withTimeout(work.call, 10_000, outer.signal));
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error("用户按了 Ctrl-C");
    outer.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.status, "外部 signal 触发后应当立即结束").toBe("rejected");
    expect(seen.error).toBe(reason);
    expect(work.state.signals[0]?.reason, "调用自己的 signal 应当带着外部的原因被中止").toBe(
      reason,
    );
    expect(vi.getTimerCount(), "取消后计时器还在").toBe(0);
  });

  it("does not start the call when the outer signal has already fired", async () => {
    const outer = new AbortController();
    const reason = new Error("已经取消");
    outer.abort(reason);
    const work = slowWork(10);
    const seen = track(withTimeout(work.call, 100, outer.signal));
    await vi.advanceTimersByTimeAsync(0);
    expect(work.state.started, "外部已取消时不应当开始调用").toBe(0);
    expect(seen).toMatchObject({ status: "rejected", error: reason });
  });

  it("removes its listener from the outer signal, whichever way the call ends", async () => {
    const outer = new AbortController();
    const ends = {
      成功: () => Promise.resolve("ok"),
      失败: () => Promise.reject(new Error("x")),
      超时: () => new Promise<never>(() => {}),
    };
    for (const [name, call] of Object.entries(ends)) {
      track(withTimeout(call, 100, outer.signal));
      await vi.advanceTimersByTimeAsync(100);
      expect(
        getEventListeners(outer.signal, "abort"),
        `${name}之后外部 signal 上还挂着监听`,
      ).toHaveLength(0);
    }
  });
});

const toolCall = (n: number) => ({
  action: { type: "tool_call", tool: "work", input: { n } },
});
const finish = { action: { type: "finish", summary: "完成" } };

/** Runs to its end or until `limitMs` of fake time have passed; then cancels it (so nothing is left running). */
async function runFor(limitMs: number, run: (signal: AbortSignal) => ReturnType<typeof runAgent>) {
  const controller = new AbortController();
  const startedAt = Date.now();
  const seen = track(run(controller.signal));
  while (seen.status === "pending" && Date.now() - startedAt < limitMs) {
    await vi.advanceTimersByTimeAsync(50);
  }
  const elapsedMs = Date.now() - startedAt;
  const finished = seen.status !== "pending";
  controller.abort();
  await vi.advanceTimersByTimeAsync(0);
  return { finished, result: seen.value, elapsedMs };
}

describe("why a run needs both budgets", () => {
  it("one slow call: a run budget checked only between steps stops the run only after the call ended", async () => {
    const guard = createLoopGuard({ maxSteps: 10, maxDurationMs: 1_000 });
    const work = slowWork(60_000);
    const startedAt = Date.now();
    const loop = async () => {
      while (!guard.beforeModelCall().stop) await work.call(never);
    };
    const seen = track(loop());
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen.status).toBe("fulfilled");
    expect(work.state.finished, "预算 1 秒，60 秒的调用却跑完了").toBe(1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(60_000);
  });

  it("one slow call: the budget's remaining time as the call's timeout stops it at the deadline", async () => {
    const guard = createLoopGuard({ maxSteps: 10, maxDurationMs: 1_000 });
    const work = slowWork(60_000);
    const seen = track(withTimeout(work.call, guard.remainingMs() ?? 0));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen.status, "时间预算用完时调用应当被中止").toBe("rejected");
    expect(seen.error).toBeInstanceOf(CallTimeoutError);
    expect(work.state.signals[0]?.aborted).toBe(true);
    expect(guard.beforeModelCall()).toMatchObject({ stop: true, code: "max_duration" });
  });

  it("many short calls: per-call timeouts alone let the run go on for as long as the calls keep coming", async () => {
    const work = slowWork(40);
    const tool: Tool = withToolTimeout({ execute: (_, signal) => work.call(signal) }, 100);
    const script = [...Array.from({ length: 20 }, (_, n) => toolCall(n)), finish];
    const { result, elapsedMs } = await runFor(10_000, (signal) =>
      runAgent("任务", createScriptedProvider(script), { work: tool }, { maxSteps: 100 }, signal),
    );
    expect(result).toMatchObject({ status: "completed", toolCalls: 20 });
    expect(elapsedMs, "每次都没超时，加起来却跑了 20 × 40 ms").toBeGreaterThanOrEqual(800);
  });

  it("many short calls: maxDurationMs stops the same run", async () => {
    const work = slowWork(40);
    const tool: Tool = withToolTimeout({ execute: (_, signal) => work.call(signal) }, 100);
    const script = [...Array.from({ length: 20 }, (_, n) => toolCall(n)), finish];
    const limits = { maxSteps: 100, maxDurationMs: 300 };
    const { result } = await runFor(10_000, (signal) =>
      runAgent("任务", createScriptedProvider(script), { work: tool }, limits, signal),
    );
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
    expect(result?.toolCalls).toBeLessThan(20);
  });
});

describe("withToolTimeout in a run", () => {
  it("answers a slow tool with a timeout error; the model reads it and the run completes", async () => {
    const work = slowWork(60_000);
    const tool = withToolTimeout({ execute: (_, signal) => work.call(signal) }, 500);
    const provider = createScriptedProvider([toolCall(1), finish]);
    const { finished, result } = await runFor(10_000, (signal) =>
      runAgent("任务", provider, { work: tool }, { maxSteps: 5 }, signal),
    );
    expect(finished, "运行被一个慢工具卡住，10 秒后还没有结束").toBe(true);
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      ok: false,
      error: { code: "timeout" },
    });
    expect(work.state.signals[0]?.aborted, "超时的工具应当被中止，而不是在后台继续跑").toBe(true);
  });

  it("still lets the run's cancel reach the tool in flight", async () => {
    const controller = new AbortController();
    const work = slowWork(60_000);
    const tool = withToolTimeout({ execute: (_, signal) => work.call(signal) }, 10_000);
    const provider = createScriptedProvider([toolCall(1), finish]);
    const seen = track(
      runAgent("任务", provider, { work: tool }, { maxSteps: 5 }, controller.signal),
    );
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error("用户取消"));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.value).toMatchObject({ status: "cancelled" });
    expect(work.state.signals[0]?.aborted, "运行取消了，工具却还在跑").toBe(true);
    expect(vi.getTimerCount(), "取消后计时器还在").toBe(0);
  });
});
