/**
 * `retryWait` (lesson 38): the wait before retrying a failure whose server named it. The
 * loop's use of it (a wait past the budget is not waited; without a budget a wait over a
 * minute is not either) is in `agent-loop.resilience.test.ts`; this is the decision alone.
 */
import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, retryWait } from "../src/retry.ts";

describe("retryWait", () => {
  it("waits the longer of the server's ask and the policy's backoff", () => {
    expect(retryWait({ backoffMs: 5, retryAfterMs: 2_000, remainingMs: 10_000 })).toEqual({
      kind: "wait",
      ms: 2_000,
    });
    expect(retryWait({ backoffMs: 500, retryAfterMs: 0, remainingMs: undefined })).toEqual({
      kind: "wait",
      ms: 500,
    });
  });

  it("is past the budget when the wait would use up the time left, or more", () => {
    expect(retryWait({ backoffMs: 5, retryAfterMs: 3_000, remainingMs: 3_000 }).kind).toBe(
      "past_budget",
    );
    expect(retryWait({ backoffMs: 5, retryAfterMs: 2_999, remainingMs: 3_000 }).kind).toBe("wait");
    // A budget longer than a minute holds a longer wait: the minute is only for runs without one.
    expect(retryWait({ backoffMs: 5, retryAfterMs: 120_000, remainingMs: 600_000 }).kind).toBe(
      "wait",
    );
  });

  it("without a budget, waits up to MAX_RETRY_AFTER_MS and no longer", () => {
    const at = { backoffMs: 5, remainingMs: undefined };
    expect(retryWait({ ...at, retryAfterMs: MAX_RETRY_AFTER_MS }).kind).toBe("wait");
    expect(retryWait({ ...at, retryAfterMs: MAX_RETRY_AFTER_MS + 1 })).toEqual({
      kind: "too_long",
      ms: MAX_RETRY_AFTER_MS + 1,
    });
  });
});
