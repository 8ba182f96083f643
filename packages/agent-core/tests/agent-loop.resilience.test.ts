/**
 * Lesson 38's resilience in the loop: a server's `Retry-After` (`retryAfterMs` on the
 * provider's error) is waited, at least, but never past the run's time budget (then the
 * run stops at once `max_duration`); and a fallback model is asked once the run's model
 * failed retryably on every attempt, named in the trace and the result. Sleep, clock and
 * randomness are injected: these tests assert decisions, never speed.
 */
import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import type { ModelReplyInfo } from "../src/extension.ts";
import type { Provider } from "../src/provider.ts";
import type { RetryPolicy } from "../src/retry.ts";
import type { TraceEvent } from "../src/trace.ts";
import { HttpError, sequence } from "./fixtures/failing-providers.ts";

const finish = { action: { type: "finish", summary: "完成" } };
const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 };

/** What a provider adapter throws for a 429/503 with `Retry-After`. */
class RateLimited extends HttpError {
  readonly retryAfterMs: number;

  constructor(status: number, retryAfterMs: number, message = `HTTP ${status} slow down`) {
    super(message, status);
    this.retryAfterMs = retryAfterMs;
  }
}

function clockedRun(provider: Provider, options: { maxDurationMs?: number } = {}) {
  let now = 0;
  const waits: number[] = [];
  const events: TraceEvent[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
    now += ms;
  };
  const done = runAgent("任务", provider, {}, { maxSteps: 5, ...options }, undefined, {
    clock: () => now,
    trace: (event) => void events.push(event),
    retry: { policy, sleep, random: () => 0 },
  });
  return { done, waits, events, now: () => now };
}

describe("Retry-After", () => {
  it("waits what the server asked (not the shorter backoff) and then completes", async () => {
    const model = sequence(new RateLimited(429, 1_000), finish);
    const { done, waits, events } = clockedRun(model.provider, { maxDurationMs: 5_000 });
    expect(await done).toMatchObject({ status: "completed" });
    expect(waits).toEqual([1_000]);
    expect(events.find((event) => event.type === "model_retry")).toMatchObject({ delayMs: 1_000 });
    expect(model.calls()).toBe(2);
  });

  it("retries the same 429 again when it says Retry-After (waiting is what changes it)", async () => {
    const model = sequence(new RateLimited(429, 1_000), new RateLimited(429, 1_000), finish);
    const { done, waits } = clockedRun(model.provider, { maxDurationMs: 10_000 });
    expect(await done).toMatchObject({ status: "completed" });
    expect(waits).toEqual([1_000, 1_000]);
    expect(model.calls()).toBe(3);
  });

  it("still stops after maxAttempts of the same 429 with Retry-After", async () => {
    const model = sequence(
      new RateLimited(429, 10),
      new RateLimited(429, 10),
      new RateLimited(429, 10),
      finish,
    );
    const { done } = clockedRun(model.provider);
    expect(await done).toMatchObject({ status: "failed", code: "provider_error" });
    expect(model.calls()).toBe(3);
  });

  it("keeps the backoff when it is longer than Retry-After: 0", async () => {
    const model = sequence(new RateLimited(503, 0), finish);
    const { done, waits } = clockedRun(model.provider);
    expect(await done).toMatchObject({ status: "completed" });
    // equal jitter with random 0: half the ceiling of 100 ms
    expect(waits).toEqual([50]);
  });

  it("does not wait past the time budget: the run stops at once, max_duration", async () => {
    const model = sequence(new RateLimited(429, 10_000), finish);
    const { done, waits, events, now } = clockedRun(model.provider, { maxDurationMs: 3_000 });
    const result = await done;
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
    expect(result.reason).toContain("Retry-After");
    expect(result.reason).toContain("10000 ms");
    expect(waits).toEqual([]);
    expect(now()).toBe(0);
    expect(model.calls()).toBe(1);
    expect(events.some((event) => event.type === "model_retry")).toBe(false);
  });

  it("a wait exactly as long as the budget left is not waited either", async () => {
    const model = sequence(new RateLimited(503, 3_000), finish);
    const { done, waits } = clockedRun(model.provider, { maxDurationMs: 3_000 });
    expect(await done).toMatchObject({ code: "max_duration" });
    expect(waits).toEqual([]);
  });

  it("without a time budget, a wait over a minute is not waited: the failure stands", async () => {
    const model = sequence(new RateLimited(429, 3_600_000), finish);
    const { done, waits } = clockedRun(model.provider);
    expect(await done).toMatchObject({ status: "failed", code: "provider_error" });
    expect(waits).toEqual([]);
  });

  it("ignores a retryAfterMs that is not a usable number", async () => {
    const error = Object.assign(new HttpError("HTTP 429", 429), { retryAfterMs: Number.NaN });
    const model = sequence(error, finish);
    const { done, waits } = clockedRun(model.provider);
    expect(await done).toMatchObject({ status: "completed" });
    expect(waits).toEqual([50]);
  });
});

describe("a Retry-After the loop can use", () => {
  it("0 is a wait the server named: the same 429 is tried again", async () => {
    const model = sequence(new RateLimited(429, 0), new RateLimited(429, 0), finish);
    const { done } = clockedRun(model.provider, { maxDurationMs: 10_000 });
    expect(await done).toMatchObject({ status: "completed" });
    expect(model.calls()).toBe(3);
  });

  it.each([
    ["negative", -5],
    ["NaN", Number.NaN],
    ["infinite", Number.POSITIVE_INFINITY],
    ["a string", "1000" as unknown as number],
  ])("a %s retryAfterMs is none: the same failure twice ends the retries", async (_name, value) => {
    const model = sequence(new RateLimited(429, value), new RateLimited(429, value), finish);
    const { done, waits } = clockedRun(model.provider, { maxDurationMs: 10_000 });
    expect(await done).toMatchObject({ status: "failed", code: "provider_error" });
    expect(model.calls()).toBe(2);
    expect(waits.every((ms) => Number.isFinite(ms) && ms >= 0 && ms <= 1_000)).toBe(true);
  });

  it("two failures that differ only in their HTTP status are not the same failure", async () => {
    const model = sequence(new HttpError("busy", 503), new HttpError("busy", 502), finish);
    const { done } = clockedRun(model.provider, { maxDurationMs: 10_000 });
    expect(await done).toMatchObject({ status: "completed" });
    expect(model.calls()).toBe(3);
  });
});

describe("fallback model", () => {
  function fallbackRun(primary: Provider, fallback: Provider, maxAttempts = 3) {
    const events: TraceEvent[] = [];
    const replies: ModelReplyInfo[] = [];
    const done = runAgent(
      "任务",
      primary,
      { echo: { execute: () => "ok" } },
      { maxSteps: 5 },
      undefined,
      {
        trace: (event) => void events.push(event),
        extensions: [{ name: "replies", afterReply: (reply) => void replies.push(reply) }],
        retry: {
          policy: { ...policy, maxAttempts },
          sleep: async () => {},
          random: () => 0,
          fallback: { provider: fallback, model: "backup-model" },
        },
      },
    );
    return { done, events, replies };
  }

  it("is asked once every attempt at the first model failed retryably, and is named", async () => {
    let n = 0;
    // Three different failures, so that only the attempts run out (not "the same twice").
    const primary: Provider = {
      async complete() {
        n += 1;
        throw new HttpError(`HTTP 503 busy #${n}`, 503);
      },
    };
    const backup = sequence({ action: { type: "tool_call", tool: "echo", input: {} } }, finish);
    const { done, events, replies } = fallbackRun(primary, backup.provider);
    const result = await done;
    expect(result).toMatchObject({ status: "completed", model: "backup-model", steps: 2 });
    expect(n).toBe(3);
    // The run stays on the fallback: step 2 does not ask the first model again.
    expect(backup.calls()).toBe(2);
    const switched = events.filter((event) => event.type === "model_retry" && event.fallbackModel);
    expect(switched).toEqual([
      expect.objectContaining({
        step: 1,
        attempt: 3,
        failureClass: "retryable",
        fallbackModel: "backup-model",
      }),
    ]);
    const completed = events.filter((event) => event.type === "model_completed");
    expect(completed.map((event) => event.type === "model_completed" && event.model)).toEqual([
      "backup-model",
      "backup-model",
    ]);
    expect(replies.map((reply) => reply.model)).toEqual(["backup-model", "backup-model"]);
  });

  it("is asked when the first model failed the same way twice (same_failure ends its retries)", async () => {
    const primary = sequence(new HttpError("HTTP 503 busy", 503));
    const backup = sequence(finish);
    const { done, events } = fallbackRun(primary.provider, backup.provider);
    expect(await done).toMatchObject({ status: "completed", model: "backup-model" });
    expect([primary.calls(), backup.calls()]).toEqual([2, 1]);
    expect(events.filter((event) => event.type === "model_retry" && event.fallbackModel)).toEqual([
      expect.objectContaining({ attempt: 2, fallbackModel: "backup-model" }),
    ]);
  });

  it("is asked when the server asks for a wait too long to take (over a minute, no budget)", async () => {
    const primary = sequence(new RateLimited(429, 120_000));
    const backup = sequence(finish);
    const { done } = fallbackRun(primary.provider, backup.provider);
    expect(await done).toMatchObject({ status: "completed", model: "backup-model" });
    expect([primary.calls(), backup.calls()]).toEqual([1, 1]);
  });

  it("is not asked when the run is cancelled during a retry wait", async () => {
    const controller = new AbortController();
    const primary = sequence(new HttpError("HTTP 503 busy", 503));
    const backup = sequence(finish);
    const events: TraceEvent[] = [];
    const result = await runAgent(
      "任务",
      primary.provider,
      {},
      { maxSteps: 5 },
      controller.signal,
      {
        trace: (event) => void events.push(event),
        retry: {
          policy,
          sleep: async () => controller.abort(),
          random: () => 0,
          fallback: { provider: backup.provider, model: "backup-model" },
        },
      },
    );
    expect(result).toMatchObject({ status: "cancelled", code: "cancelled" });
    expect([primary.calls(), backup.calls()]).toEqual([1, 0]);
    expect(events.some((event) => event.type === "model_retry" && event.fallbackModel)).toBe(false);
  });

  it("is not asked for a failure that is not retryable (a 400 ends the run)", async () => {
    const primary = sequence(new HttpError("HTTP 400 bad request", 400));
    const backup = sequence(finish);
    const { done } = fallbackRun(primary.provider, backup.provider);
    expect(await done).toMatchObject({ status: "failed", code: "provider_error" });
    expect(primary.calls()).toBe(1);
    expect(backup.calls()).toBe(0);
  });

  it("is asked with one attempt only (max retries 0), and its own failure ends the run", async () => {
    const primary = sequence(new HttpError("HTTP 503 a", 503));
    const backup = sequence(new HttpError("HTTP 503 b", 503));
    const { done, events } = fallbackRun(primary.provider, backup.provider, 1);
    const result = await done;
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(result.reason).toContain("503 b");
    expect([primary.calls(), backup.calls()]).toEqual([1, 1]);
    expect(result.model).toBeUndefined();
    expect(events.filter((event) => event.type === "model_retry")).toHaveLength(1);
  });

  describe("cost", () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0 };
    const main = { inputPerMTok: 3, outputPerMTok: 15 };
    const cheap = { inputPerMTok: 1, outputPerMTok: 5 };
    /** Step 1 on the primary, then three different 503s, then step 2 on the fallback. */
    function pricedRun(fallback: { price?: typeof cheap | null }, maxCostUsd?: number) {
      let n = 0;
      const primary: Provider = {
        async complete() {
          n += 1;
          if (n === 1) return { action: { type: "tool_call", tool: "echo", input: {} }, usage };
          throw new HttpError(`HTTP 503 busy #${n}`, 503);
        },
      };
      const backup = sequence({ ...finish, usage });
      return runAgent(
        "任务",
        primary,
        { echo: { execute: () => "ok" } },
        { maxSteps: 5 },
        undefined,
        {
          price: main,
          ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
          retry: {
            policy,
            sleep: async () => {},
            random: () => 0,
            fallback: { provider: backup.provider, model: "backup-model", ...fallback },
          },
        },
      );
    }

    it("prices the fallback's calls at the fallback's price", async () => {
      expect(await pricedRun({ price: cheap })).toMatchObject({ status: "completed", costUsd: 4 });
    });

    it("an unknown fallback price makes the run's cost unknown from then on, not the first model's", async () => {
      const result = await pricedRun({ price: null });
      expect(result).toMatchObject({ status: "completed", costUsd: null });
    });

    it("keeps the run's price for a fallback given none (the old behaviour)", async () => {
      expect(await pricedRun({})).toMatchObject({ status: "completed", costUsd: 6 });
    });

    it("refuses a cost budget with a fallback of unknown price, before any call", async () => {
      await expect(pricedRun({ price: null }, 10)).rejects.toThrow(/fallback model's price/);
      // A `price` key that holds nothing is an unknown price too, not "the run's price".
      await expect(pricedRun({ price: undefined }, 10)).rejects.toThrow(/fallback model's price/);
    });

    it("takes a cost budget with a priced fallback, and counts both models' calls against it", async () => {
      expect(await pricedRun({ price: cheap }, 10)).toMatchObject({
        status: "completed",
        costUsd: 4,
      });
      expect(await pricedRun({}, 10)).toMatchObject({ status: "completed", costUsd: 6 });
    });

    it("names the fallback's price, and every problem of it, when the price is malformed", async () => {
      const bad = { inputPerMTok: -1, outputPerMTok: "5" } as unknown as typeof cheap;
      await expect(pricedRun({ price: bad })).rejects.toThrow(
        /^invalid options: retry\.fallback\.price: inputPerMTok.*; outputPerMTok/,
      );
    });
  });

  it("names the primary's model while the primary answers (the provider's own name)", async () => {
    const primary = sequence({ ...finish, model: "main-model" });
    const backup = sequence(finish);
    const { done } = fallbackRun(primary.provider, backup.provider);
    expect(await done).toMatchObject({ status: "completed", model: "main-model" });
    expect(backup.calls()).toBe(0);
  });
});

describe("a model call under retry", () => {
  it("is not made when the run is cancelled as it starts: cancelled, the provider never asked", async () => {
    const controller = new AbortController();
    const model = sequence(finish);
    const result = await runAgent("任务", model.provider, {}, { maxSteps: 5 }, controller.signal, {
      // The last moment before the call: the event that opens it.
      trace: (event) => {
        if (event.type === "model_started") controller.abort();
      },
      retry: { policy, sleep: async () => {}, random: () => 0 },
    });
    expect(result).toMatchObject({ status: "cancelled", code: "cancelled" });
    expect(model.calls()).toBe(0);
  });

  it('does not retry an error whose status is not a number (a text "503" is no HTTP status)', async () => {
    const odd = Object.assign(new Error("busy"), { status: "503" });
    const model = sequence(odd, finish);
    const result = await runAgent("任务", model.provider, {}, { maxSteps: 5 }, undefined, {
      retry: { policy, sleep: async () => {}, random: () => 0 },
    });
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(model.calls()).toBe(1);
  });
});
