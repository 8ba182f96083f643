import {
  FAILURE_CLASSES,
  type RetryInput,
  type RetryPolicy,
  withRetry,
} from "@coding-agent/agent-core";
import { decideRetry } from "@lab";
import { describe, expect, it } from "vitest";

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
  if (!decision.retry)
    throw new Error(`第 ${i.attempt} 次失败后应当重试，却放弃了：${decision.reason}`);
  return decision.delayMs;
};

describe("decideRetry", () => {
  it("retries only the retryable class; every other class gives up as not_retryable", () => {
    for (const failureClass of FAILURE_CLASSES) {
      const expected =
        failureClass === "retryable"
          ? expect.objectContaining({ retry: true })
          : { retry: false, reason: "not_retryable" };
      expect(decideRetry(input({ failureClass }), policy, fixed(0)), failureClass).toEqual(
        expected,
      );
    }
  });

  it("gives up as attempts_exhausted once the failed attempt is the last one maxAttempts allows", () => {
    expect(decideRetry(input({ attempt: 4 }), policy, fixed(0)).retry, "第 4 次失败").toBe(true);
    for (const [attempt, maxAttempts] of [
      [5, 5],
      [9, 5],
      [1, 1],
    ] as const) {
      expect(
        decideRetry(input({ attempt }), { ...policy, maxAttempts }, fixed(0)),
        `第 ${attempt} 次失败，最多 ${maxAttempts} 次`,
      ).toEqual({ retry: false, reason: "attempts_exhausted" });
    }
  });

  it("gives up as same_failure when the fingerprint equals the one before it, and retries a different one", () => {
    expect(
      decideRetry(input({ attempt: 2, previousFingerprint: "HTTP 503" }), policy, fixed(0)),
      "连续两次 HTTP 503",
    ).toEqual({ retry: false, reason: "same_failure" });
    expect(
      decideRetry(input({ attempt: 2, previousFingerprint: "HTTP 502" }), policy, fixed(0)),
      "HTTP 502 之后是 HTTP 503",
    ).toEqual({ retry: true, delayMs: 100 });
  });

  it("backs off exponentially: the delay range doubles per attempt, from half the ceiling to the ceiling", () => {
    const attempts = [1, 2, 3, 4];
    expect(
      attempts.map((attempt) => delayOf(input({ attempt }), 0)),
      "random() = 0",
    ).toEqual([50, 100, 200, 400]);
    expect(
      attempts.map((attempt) => delayOf(input({ attempt }), 0.999999)),
      "random() 接近 1",
    ).toEqual([100, 200, 400, 800]);
  });

  it("jitters with the injected random: the delay moves inside its range", () => {
    expect(
      [0, 0.25, 0.5, 0.75].map((r) => delayOf(input({ attempt: 3 }), r)),
      "第 3 次失败，random() 为 0、0.25、0.5、0.75",
    ).toEqual([200, 250, 300, 350]);
  });

  it("never waits longer than maxDelayMs however many attempts there are", () => {
    const long = { ...policy, maxAttempts: 100 };
    for (const attempt of [5, 10, 60, 99]) {
      expect(delayOf(input({ attempt }), 0.999999, long), `第 ${attempt} 次失败`).toBe(1000);
      expect(delayOf(input({ attempt }), 0, long), `第 ${attempt} 次失败`).toBe(500);
    }
  });

  it("drives withRetry: a 503 and a 502 are retried after the decided delays, a 401 is not", async () => {
    const http = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
    const run = async (statuses: number[]) => {
      const slept: number[] = [];
      const result = await withRetry(
        async (attempt) => {
          const status = statuses.shift();
          if (status !== undefined) throw http(status);
          return `第 ${attempt} 次成功`;
        },
        policy,
        {
          sleep: async (ms) => {
            slept.push(ms);
          },
          random: fixed(0),
          failureOf: (error) => ({
            source: "provider",
            status: (error as { status: number }).status,
          }),
          decide: decideRetry,
        },
      );
      return { result, slept };
    };
    expect(await run([503, 502]), "503、502 之后成功").toEqual({
      result: { ok: true, value: "第 3 次成功", attempts: 3 },
      slept: [50, 100],
    });
    expect(await run([401]), "401").toMatchObject({
      result: { ok: false, reason: "not_retryable", attempts: 1 },
      slept: [],
    });
  });
});
