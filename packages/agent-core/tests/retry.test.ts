import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { AbortError } from "../src/errors.ts";
import { FAILURE_CLASSES } from "../src/failure.ts";
import { decideRetry, type RetryInput, type RetryPolicy, withRetry } from "../src/retry.ts";

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
const input = (overrides: Partial<RetryInput> = {}): RetryInput => ({
  failureClass: "retryable",
  attempt: 1,
  fingerprint: "HTTP 503",
  ...overrides,
});
const fixed = (r: number) => () => r;
const delayOf = (i: RetryInput, r: number, p: RetryPolicy = policy): number => {
  const decision = decideRetry(i, p, fixed(r));
  if (!decision.retry) throw new Error(`expected a retry, got ${decision.reason}`);
  return decision.delayMs;
};

describe("decideRetry", () => {
  it("retries only the retryable class; every other class gives up as not_retryable", () => {
    for (const failureClass of FAILURE_CLASSES) {
      const decision = decideRetry(input({ failureClass }), policy, fixed(0.5));
      expect(decision.retry, failureClass).toBe(failureClass === "retryable");
      if (!decision.retry) expect(decision.reason, failureClass).toBe("not_retryable");
    }
  });

  it("gives up as attempts_exhausted once the failed attempt is the last one allowed", () => {
    expect(decideRetry(input({ attempt: 4 }), policy, fixed(0)).retry).toBe(true);
    expect(decideRetry(input({ attempt: 5 }), policy, fixed(0))).toEqual({
      retry: false,
      reason: "attempts_exhausted",
    });
    expect(decideRetry(input({ attempt: 9 }), policy, fixed(0))).toEqual({
      retry: false,
      reason: "attempts_exhausted",
    });
    expect(decideRetry(input(), { ...policy, maxAttempts: 1 }, fixed(0))).toEqual({
      retry: false,
      reason: "attempts_exhausted",
    });
  });

  it("gives up as same_failure when the fingerprint equals the previous one, and retries a different one", () => {
    expect(
      decideRetry(input({ attempt: 2, previousFingerprint: "HTTP 503" }), policy, fixed(0)),
    ).toEqual({
      retry: false,
      reason: "same_failure",
    });
    expect(
      decideRetry(input({ attempt: 2, previousFingerprint: "HTTP 502" }), policy, fixed(0)).retry,
    ).toBe(true);
    expect(
      decideRetry(input({ attempt: 2, previousFingerprint: "" }), policy, fixed(0)).retry,
    ).toBe(true);
  });

  it("backs off exponentially: the delay range doubles per attempt, from half the ceiling to the ceiling", () => {
    expect([1, 2, 3, 4].map((attempt) => delayOf(input({ attempt }), 0))).toEqual([
      50, 100, 200, 400,
    ]);
    expect([1, 2, 3, 4].map((attempt) => delayOf(input({ attempt }), 0.999999))).toEqual([
      100, 200, 400, 800,
    ]);
  });

  it("jitters: the injected random moves the delay inside its range", () => {
    const delays = [0, 0.25, 0.5, 0.75].map((r) => delayOf(input({ attempt: 3 }), r));
    expect(delays).toEqual([200, 250, 300, 350]);
  });

  it("caps every delay at maxDelayMs however many attempts there are", () => {
    const long = { ...policy, maxAttempts: 100 };
    for (const attempt of [5, 10, 60, 99]) {
      expect(delayOf(input({ attempt }), 0.999999, long), `attempt ${attempt}`).toBeLessThanOrEqual(
        1000,
      );
      expect(delayOf(input({ attempt }), 0, long), `attempt ${attempt}`).toBe(500);
    }
  });

  it("refuses a policy out of range and a random outside [0, 1) with a RangeError naming it", () => {
    expect(() => decideRetry(input(), { ...policy, maxAttempts: 0 }, fixed(0))).toThrow(
      /maxAttempts/,
    );
    expect(() => decideRetry(input(), { ...policy, maxAttempts: 2.5 }, fixed(0))).toThrow(
      /maxAttempts/,
    );
    expect(() => decideRetry(input(), { ...policy, baseDelayMs: -1 }, fixed(0))).toThrow(
      /baseDelayMs/,
    );
    expect(() => decideRetry(input(), { ...policy, maxDelayMs: 50 }, fixed(0))).toThrow(
      /maxDelayMs/,
    );
    expect(() => decideRetry(input(), policy, fixed(1))).toThrow(RangeError);
    expect(() => decideRetry(input(), policy, fixed(Number.NaN))).toThrow(/random/);
  });
});

/** A clock the test controls: sleeps are recorded and resolve at once, or never. */
function fakeClock(mode: "instant" | "never" = "instant", onSleep = () => {}) {
  const slept: number[] = [];
  const sleep = (ms: number) => {
    slept.push(ms);
    onSleep();
    return mode === "instant" ? Promise.resolve() : new Promise<void>(() => {});
  };
  return { slept, sleep };
}
const http = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
const providerFailure = (error: unknown) => ({
  source: "provider" as const,
  status: (error as { status: number }).status,
});

describe("withRetry", () => {
  it("retries a retryable failure after the decided delay and returns the value with the attempt count", async () => {
    const clock = fakeClock();
    const statuses = [503, 502];
    const result = await withRetry(
      async (attempt) => {
        const status = statuses.shift();
        if (status !== undefined) throw http(status);
        return `ok on ${attempt}`;
      },
      policy,
      { sleep: clock.sleep, random: fixed(0), failureOf: providerFailure },
    );
    expect(result).toEqual({ ok: true, value: "ok on 3", attempts: 3 });
    expect(clock.slept).toEqual([50, 100]);
  });

  it("gives up with the decision's reason and the last error, without sleeping", async () => {
    const clock = fakeClock();
    const denied = http(401);
    const result = await withRetry(
      async () => {
        throw denied;
      },
      policy,
      { sleep: clock.sleep, random: fixed(0), failureOf: providerFailure },
    );
    expect(result).toEqual({ ok: false, error: denied, reason: "not_retryable", attempts: 1 });
    expect(clock.slept).toEqual([]);
  });

  it("stops on the same failure twice in a row", async () => {
    const clock = fakeClock();
    const result = await withRetry(
      async () => {
        throw http(503);
      },
      policy,
      { sleep: clock.sleep, random: fixed(0), failureOf: providerFailure },
    );
    expect(result).toMatchObject({ ok: false, reason: "same_failure", attempts: 2 });
    expect(clock.slept).toEqual([50]);
  });

  it("stops at once when cancelled during a sleep that never ends, without another call", async () => {
    const controller = new AbortController();
    const clock = fakeClock("never", () => queueMicrotask(() => controller.abort()));
    let calls = 0;
    const running = withRetry(
      async () => {
        calls++;
        throw http(503);
      },
      policy,
      {
        sleep: clock.sleep,
        random: fixed(0),
        failureOf: providerFailure,
        signal: controller.signal,
      },
    );
    await expect(running).resolves.toMatchObject({ ok: false, reason: "cancelled", attempts: 1 });
    expect(calls).toBe(1);
    expect(clock.slept).toEqual([50]);
  });

  it("does not call at all under an already aborted signal, and treats a thrown AbortError as cancelled", async () => {
    const clock = fakeClock();
    let calls = 0;
    const aborted = await withRetry(
      async () => {
        calls++;
        return 1;
      },
      policy,
      { sleep: clock.sleep, random: fixed(0), signal: AbortSignal.abort() },
    );
    expect(aborted).toMatchObject({ ok: false, reason: "cancelled", attempts: 0 });
    expect(calls).toBe(0);
    const thrown = await withRetry(
      async () => {
        throw new AbortError("user pressed Ctrl+C");
      },
      policy,
      { sleep: clock.sleep, random: fixed(0) },
    );
    expect(thrown).toMatchObject({ ok: false, reason: "cancelled", attempts: 1 });
    expect(clock.slept).toEqual([]);
  });
});

describe("withRetry, the details a caller relies on", () => {
  const http503 = () => http(503);

  it("rejects a random() outside [0, 1) and accepts a base delay of 0", () => {
    for (const r of [1, -0.1, Number.NaN]) {
      expect(() => decideRetry(input(), policy, fixed(r))).toThrow(RangeError);
    }
    const none = { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 };
    expect(decideRetry(input(), none, fixed(0.5))).toEqual({ retry: true, delayMs: 0 });
  });

  it("treats a plain throw as a bug by default: not retried", async () => {
    const boom = new Error("boom");
    const result = await withRetry(
      async () => {
        throw boom;
      },
      policy,
      { sleep: fakeClock().sleep, random: fixed(0) },
    );
    expect(result).toEqual({ ok: false, error: boom, reason: "not_retryable", attempts: 1 });
  });

  it("answers a signal aborted before the first call with an AbortError named cancelled", async () => {
    const result = await withRetry(async () => 1, policy, {
      sleep: fakeClock().sleep,
      random: fixed(0),
      signal: AbortSignal.abort(),
    });
    expect(result.ok).toBe(false);
    const error = result.ok ? undefined : result.error;
    expect(error).toBeInstanceOf(AbortError);
    expect((error as Error).message).toBe("cancelled");
  });

  it("stops on a failure its failureOf calls cancelled, and on an AbortError whatever its class", async () => {
    const stop = new Error("stopped by policy");
    const byClass = await withRetry(
      async () => {
        throw stop;
      },
      policy,
      {
        sleep: fakeClock().sleep,
        random: fixed(0),
        failureOf: () => ({ source: "stop", code: "cancelled" }),
      },
    );
    expect(byClass).toEqual({ ok: false, error: stop, reason: "cancelled", attempts: 1 });
    const abort = new AbortError("inner");
    const byError = await withRetry(
      async () => {
        throw abort;
      },
      policy,
      { sleep: fakeClock().sleep, random: fixed(0), failureOf: providerFailure },
    );
    expect(byError).toEqual({ ok: false, error: abort, reason: "cancelled", attempts: 1 });
  });

  it("keeps the last failure as the error when cancelled during a wait, and removes its listener", async () => {
    const controller = new AbortController();
    const first = http503();
    const never = fakeClock("never", () => controller.abort());
    const result = await withRetry(
      async () => {
        throw first;
      },
      policy,
      {
        sleep: never.sleep,
        random: fixed(0),
        failureOf: providerFailure,
        signal: controller.signal,
      },
    );
    expect(result).toEqual({ ok: false, error: first, reason: "cancelled", attempts: 1 });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("counts a wait that ended although the signal fired meanwhile as cancelled", async () => {
    const controller = new AbortController();
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls += 1;
        throw http503();
      },
      policy,
      {
        sleep: async () => controller.abort(),
        random: fixed(0),
        failureOf: providerFailure,
        signal: controller.signal,
      },
    );
    expect(result).toMatchObject({ ok: false, reason: "cancelled", attempts: 1 });
    expect(calls).toBe(1);
  });

  it("takes a sleep that rejects with an AbortError as a cancel, and passes any other rejection on", async () => {
    const { signal } = new AbortController();
    const options = (sleep: () => Promise<void>) => ({
      sleep,
      random: fixed(0),
      failureOf: providerFailure,
      signal,
    });
    const failing = async () => {
      throw http503();
    };
    await expect(
      withRetry(
        failing,
        policy,
        options(() => Promise.reject(new AbortError("sleep stopped"))),
      ),
    ).resolves.toMatchObject({ ok: false, reason: "cancelled" });
    const broken = new Error("timer broke");
    await expect(
      withRetry(
        failing,
        policy,
        options(() => Promise.reject(broken)),
      ),
    ).rejects.toBe(broken);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("leaves no listener after a wait that ended normally", async () => {
    const { signal } = new AbortController();
    const statuses = [503];
    const result = await withRetry(
      async () => {
        if (statuses.shift() !== undefined) throw http503();
        return "ok";
      },
      policy,
      { sleep: async () => {}, random: fixed(0), failureOf: providerFailure, signal },
    );
    expect(result).toEqual({ ok: true, value: "ok", attempts: 2 });
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("fingerprints thrown non-errors by their text, and unprintable ones alike", async () => {
    const retryable = { failureOf: () => ({ source: "provider" as const, status: 503 }) };
    const run = (values: unknown[]) =>
      withRetry(
        async () => {
          throw values.shift();
        },
        policy,
        { sleep: fakeClock().sleep, random: fixed(0), ...retryable },
      );
    // "a" then "b" differ, so the second is retried; "c" twice in a row is the same failure.
    await expect(run(["a", "b", "c", "c"])).resolves.toMatchObject({
      reason: "same_failure",
      attempts: 4,
    });
    const unprintable = () => ({
      toString() {
        throw new Error("no text");
      },
    });
    await expect(run([unprintable(), unprintable()])).resolves.toMatchObject({
      reason: "same_failure",
      attempts: 2,
    });
    // An error's name is part of its fingerprint: a TypeError then a RangeError differ.
    await expect(
      run([new TypeError("x"), new RangeError("x"), new RangeError("x")]),
    ).resolves.toMatchObject({ reason: "same_failure", attempts: 3 });
  });
});
