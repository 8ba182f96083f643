/**
 * Retrying model calls (`RunOptions.retry`): only `retryable` failures, with backoff,
 * never the same failure twice in a row, never past the attempts or the run's time,
 * and a cancel during the wait ends the run at once. Sleep, clock and randomness are
 * injected, so these tests assert decisions, never speed.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import type { Provider } from "../src/provider.ts";
import type { ModelRetryOptions, RetryPolicy } from "../src/retry.ts";
import type { TraceEvent } from "../src/trace.ts";
import { HttpError, sequence } from "./fixtures/failing-providers.ts";

const finish = { action: { type: "finish", summary: "完成" } };
const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 };

/** A sleep that returns at once and records what it was asked to wait. */
function recordingSleep() {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
  };
  return { sleep, waits };
}

async function run(provider: Provider, retry?: ModelRetryOptions, signal?: AbortSignal) {
  const events: TraceEvent[] = [];
  const result = await runAgent("任务", provider, {}, { maxSteps: 5 }, signal, {
    trace: (event) => void events.push(event),
    ...(retry === undefined ? {} : { retry }),
  });
  return { result, events };
}

describe("runAgent retries model calls", () => {
  it("does not retry without a retry option: one 503 ends the run", async () => {
    const model = sequence(new HttpError("HTTP 503 busy", 503), finish);
    const { result } = await run(model.provider);
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(model.calls()).toBe(1);
  });

  it("retries 503 then 502 with backoff and completes; retries are not steps", async () => {
    const model = sequence(
      new HttpError("HTTP 503 busy", 503),
      new HttpError("HTTP 502", 502),
      finish,
    );
    const { sleep, waits } = recordingSleep();
    const { result, events } = await run(model.provider, { policy, sleep, random: () => 0.5 });
    expect(result).toMatchObject({ status: "completed", code: "finished", steps: 1 });
    expect(model.calls()).toBe(3);
    // equal jitter: ceiling/2 + 0.5 * ceiling/2, ceiling = 100 then 200
    expect(waits).toEqual([75, 150]);
    const retries = events.filter((event) => event.type === "model_retry");
    expect(retries).toMatchObject([
      { step: 1, attempt: 1, failureClass: "retryable", delayMs: 75 },
      { step: 1, attempt: 2, failureClass: "retryable", delayMs: 150 },
    ]);
    expect(retries[0]).toMatchObject({ detail: expect.stringContaining("503") });
    expect(events.filter((event) => event.type === "model_started")).toHaveLength(1);
  });

  it.each([
    ["429 rate limit", new HttpError("HTTP 429 slow down", 429)],
    ["408 request timeout", new HttpError("HTTP 408", 408)],
    ["no answer (status undefined)", new HttpError("无法连接", undefined)],
  ])("retries %s", async (_, error) => {
    const model = sequence(error, finish);
    const { sleep } = recordingSleep();
    const { result } = await run(model.provider, { policy, sleep, random: () => 0 });
    expect(result.status).toBe("completed");
    expect(model.calls()).toBe(2);
  });

  it.each([
    ["400 bad request (invalid_input)", new HttpError("HTTP 400 bad model", 400)],
    ["401 bad key (invalid_input)", new HttpError("HTTP 401", 401)],
    ["200 with a body of the wrong shape (bug)", new HttpError("HTTP 200 not JSON", 200)],
    ["a plain Error: our own bug", new Error("undefined is not a function")],
    ["a thrown string", "boom"],
  ])("does not retry %s", async (_, error) => {
    const provider: Provider = {
      complete: vi.fn(async () => {
        throw error;
      }),
    };
    const { sleep, waits } = recordingSleep();
    const { result, events } = await run(provider, { policy, sleep, random: () => 0 });
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(provider.complete).toHaveBeenCalledTimes(1);
    expect(waits).toEqual([]);
    expect(events.some((event) => event.type === "model_retry")).toBe(false);
  });

  it("does not retry the same failure twice in a row", async () => {
    const model = sequence(
      new HttpError("HTTP 503 busy", 503),
      new HttpError("HTTP 503 busy", 503),
      finish,
    );
    const { sleep } = recordingSleep();
    const { result } = await run(model.provider, { policy, sleep, random: () => 0 });
    expect(result).toMatchObject({
      code: "provider_error",
      reason: expect.stringContaining("busy"),
    });
    expect(model.calls()).toBe(2);
  });

  it("stops after maxAttempts and reports the last failure", async () => {
    const model = sequence(
      new HttpError("HTTP 503 a", 503),
      new HttpError("HTTP 503 b", 503),
      new HttpError("HTTP 503 c", 503),
      finish,
    );
    const { sleep } = recordingSleep();
    const { result } = await run(model.provider, { policy, sleep, random: () => 0 });
    expect(result).toMatchObject({
      code: "provider_error",
      reason: expect.stringContaining("503 c"),
    });
    expect(model.calls()).toBe(3);
  });

  it("gives each step its own attempts", async () => {
    const message = { action: { type: "message", content: "想一想" } };
    const model = sequence(
      new HttpError("HTTP 503 a", 503),
      message,
      new HttpError("HTTP 503 b", 503),
      new HttpError("HTTP 502 c", 502),
      finish,
    );
    const { sleep, waits } = recordingSleep();
    const { result } = await run(model.provider, { policy, sleep, random: () => 0 });
    expect(result).toMatchObject({ status: "completed", steps: 2 });
    // attempt numbers restart per step: 50 (attempt 1), then 50 and 100 for step 2
    expect(waits).toEqual([50, 50, 100]);
  });

  it("retries a call that ran past modelTimeoutMs", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const provider: Provider = {
      complete(_request, signal) {
        calls += 1;
        if (calls > 1) return Promise.resolve(finish);
        return new Promise((_, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
      },
    };
    const { sleep } = recordingSleep();
    const pending = runAgent(
      "任务",
      provider,
      {},
      { maxSteps: 5, modelTimeoutMs: 1_000 },
      undefined,
      {
        retry: { policy, sleep, random: () => 0 },
      },
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(pending).resolves.toMatchObject({ status: "completed" });
    expect(calls).toBe(2);
  });

  it("never waits past the run's time budget, and makes no call after it", async () => {
    let now = 0;
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      now += ms;
    };
    const model = sequence(new HttpError("HTTP 503", 503), finish);
    const result = await runAgent(
      "任务",
      model.provider,
      {},
      { maxSteps: 5, maxDurationMs: 300 },
      undefined,
      {
        clock: () => now,
        retry: {
          policy: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 1_000 },
          sleep,
          random: () => 0,
        },
      },
    );
    expect(waits).toEqual([300]);
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
    expect(model.calls()).toBe(1);
  });

  it("ends cancelled at once when the signal aborts during the wait", async () => {
    const controller = new AbortController();
    const model = sequence(new HttpError("HTTP 503", 503), finish);
    const sleep = () => {
      controller.abort();
      return new Promise<void>(() => {}); // never ends: the cancel must not wait for it
    };
    const { result } = await run(
      model.provider,
      { policy, sleep, random: () => 0 },
      controller.signal,
    );
    expect(result).toMatchObject({ status: "cancelled", code: "cancelled" });
    expect(model.calls()).toBe(1);
  });

  it("waits with a real timer by default and stops it on cancel", async () => {
    vi.useFakeTimers();
    const model = sequence(new HttpError("HTTP 503", 503), finish);
    const retry = {
      policy: { maxAttempts: 2, baseDelayMs: 10_000, maxDelayMs: 10_000 },
      random: () => 0,
    };
    const pending = runAgent("任务", model.provider, {}, { maxSteps: 5 }, undefined, { retry });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(model.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toMatchObject({ status: "completed" });
    expect(model.calls()).toBe(2);

    const controller = new AbortController();
    const again = sequence(new HttpError("HTTP 503", 503), finish);
    const cancelled = runAgent("任务", again.provider, {}, { maxSteps: 5 }, controller.signal, {
      retry,
    });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await expect(cancelled).resolves.toMatchObject({ status: "cancelled" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("masks a secret in the failure before it reaches the trace", async () => {
    const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
    const model = sequence(new HttpError(`HTTP 503 for key ${key}`, 503), finish);
    const { sleep } = recordingSleep();
    const { events } = await run(model.provider, { policy, sleep, random: () => 0 });
    const retry = events.find((event) => event.type === "model_retry");
    expect(retry).toBeDefined();
    expect(JSON.stringify(events)).not.toContain(key);
  });

  it.each([
    [
      "a status getter that throws",
      Object.defineProperty(new Error("x"), "status", {
        get() {
          throw new Error("getter");
        },
      }),
    ],
    [
      "a revoked Proxy",
      (() => {
        const p = Proxy.revocable({}, {});
        p.revoke();
        return p.proxy;
      })(),
    ],
    [
      "a Proxy whose has trap throws",
      new Proxy(
        {},
        {
          has() {
            throw new Error("trap");
          },
        },
      ),
    ],
    ["a status that is a string", Object.assign(new Error("x"), { status: "503" })],
  ])("resolves failed, without retrying, when the provider throws %s", async (_, error) => {
    const provider: Provider = { complete: vi.fn(() => Promise.reject(error)) };
    const { sleep, waits } = recordingSleep();
    const { result } = await run(provider, { policy, sleep, random: () => 0 });
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(waits).toEqual([]);
  });

  it("rejects a policy out of range as the caller's mistake, before any call", async () => {
    const model = sequence(finish);
    await expect(
      runAgent("任务", model.provider, {}, { maxSteps: 5 }, undefined, {
        retry: { policy: { ...policy, maxAttempts: 0 } },
      }),
    ).rejects.toThrow(/maxAttempts/);
    expect(model.calls()).toBe(0);
  });
});

afterEach(() => {
  vi.useRealTimers();
});
