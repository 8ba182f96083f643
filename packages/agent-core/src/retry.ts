import type { ModelPrice } from "./cost.ts";
import { AbortError, isAbortError } from "./errors.ts";
import { classifyFailure, type Failure, type FailureClass } from "./failure.ts";
import type { Provider } from "./provider.ts";

/** How often and how patiently to retry. Delays in milliseconds. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 means never retry). An integer ≥ 1. */
  readonly maxAttempts: number;
  /** The backoff before the second attempt; it doubles per attempt. ≥ 0. */
  readonly baseDelayMs: number;
  /** No delay is longer than this. ≥ baseDelayMs. */
  readonly maxDelayMs: number;
}

/** One failed attempt, as the retry decision sees it. */
export interface RetryInput {
  readonly failureClass: FailureClass;
  /** The number of the attempt that just failed, from 1. */
  readonly attempt: number;
  /** The fingerprint of the attempt before this one, if there was one. */
  readonly previousFingerprint?: string | undefined;
  readonly fingerprint: string;
}

export type GiveUpReason = "not_retryable" | "attempts_exhausted" | "same_failure";

export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number }
  | { readonly retry: false; readonly reason: GiveUpReason };

/**
 * Whether to retry after a failed attempt, and after how long. Only `retryable` is
 * retried; never past `maxAttempts`; never when this failure has the same fingerprint as
 * the one before it (the same failure twice in a row will not change by waiting).
 * The delay is exponential backoff with equal jitter: half of
 * `min(maxDelayMs, baseDelayMs * 2^(attempt-1))` plus `random()` times the other half.
 * Pure: the randomness is injected (`random` answers in [0, 1)).
 */
export function decideRetry(
  input: RetryInput,
  policy: RetryPolicy,
  random: () => number,
): RetryDecision {
  checkPolicy(policy);
  if (input.failureClass !== "retryable") return { retry: false, reason: "not_retryable" };
  if (input.attempt >= policy.maxAttempts) return { retry: false, reason: "attempts_exhausted" };
  if (input.previousFingerprint === input.fingerprint)
    return { retry: false, reason: "same_failure" };
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (input.attempt - 1));
  const r = random();
  if (!(r >= 0 && r < 1)) throw new RangeError(`random() must answer in [0, 1), got ${r}`);
  return { retry: true, delayMs: Math.round(ceiling / 2 + (r * ceiling) / 2) };
}

/** Throws a RangeError naming the first field of `policy` that is out of range. */
export function checkPolicy(policy: RetryPolicy): void {
  const { maxAttempts, baseDelayMs, maxDelayMs } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be an integer ≥ 1, got ${maxAttempts}`);
  }
  if (!Number.isFinite(baseDelayMs) || baseDelayMs < 0) {
    throw new RangeError(`baseDelayMs must be a finite number ≥ 0, got ${baseDelayMs}`);
  }
  if (!Number.isFinite(maxDelayMs) || maxDelayMs < baseDelayMs) {
    throw new RangeError(`maxDelayMs must be a finite number ≥ baseDelayMs, got ${maxDelayMs}`);
  }
}

export interface WithRetryOptions {
  /** Waits `ms`; tests pass a fake clock. A cancel does not wait for it to settle. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly signal?: AbortSignal | undefined;
  /** What a thrown error is; by default `{ source: "thrown", error }`. */
  readonly failureOf?: ((error: unknown) => Failure) | undefined;
  /** What makes two failures "the same"; by default the error's name and message. */
  readonly fingerprintOf?: ((error: unknown) => string) | undefined;
  /** The decision to use; by default `decideRetry`. */
  readonly decide?: typeof decideRetry | undefined;
}

export type WithRetryResult<T> =
  | { readonly ok: true; readonly value: T; readonly attempts: number }
  | {
      readonly ok: false;
      readonly error: unknown;
      readonly reason: GiveUpReason | "cancelled";
      readonly attempts: number;
    };

/**
 * Calls `call(attempt)` until it resolves or `decide` gives up. Never throws for a failed
 * call: the last error and the reason come back in the result. A cancel (the signal, or a
 * call throwing an AbortError) stops at once, even in the middle of a sleep.
 */
export async function withRetry<T>(
  call: (attempt: number, signal?: AbortSignal) => Promise<T>,
  policy: RetryPolicy,
  options: WithRetryOptions,
): Promise<WithRetryResult<T>> {
  checkPolicy(policy);
  const { sleep, random, signal } = options;
  const failureOf =
    options.failureOf ?? ((error: unknown): Failure => ({ source: "thrown", error }));
  const fingerprintOf = options.fingerprintOf ?? defaultFingerprint;
  const decide = options.decide ?? decideRetry;
  let previousFingerprint: string | undefined;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted)
      return {
        ok: false,
        error: new AbortError("cancelled"),
        reason: "cancelled",
        attempts: attempt - 1,
      };
    try {
      return { ok: true, value: await call(attempt, signal), attempts: attempt };
    } catch (error) {
      const failureClass = classifyFailure(failureOf(error));
      if (failureClass === "cancelled" || isAbortError(error) || signal?.aborted) {
        return { ok: false, error, reason: "cancelled", attempts: attempt };
      }
      const fingerprint = fingerprintOf(error);
      const decision = decide(
        { failureClass, attempt, previousFingerprint, fingerprint },
        policy,
        random,
      );
      if (!decision.retry) return { ok: false, error, reason: decision.reason, attempts: attempt };
      previousFingerprint = fingerprint;
      if (!(await sleepUnlessCancelled(sleep, decision.delayMs, signal))) {
        return { ok: false, error, reason: "cancelled", attempts: attempt };
      }
    }
  }
}

/** True when the sleep ended, false as soon as the signal aborts (without waiting for sleep). */
async function sleepUnlessCancelled(
  sleep: WithRetryOptions["sleep"],
  ms: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (signal === undefined) {
    await sleep(ms);
    return true;
  }
  if (signal.aborted) return false;
  let onAbort = (): void => {};
  const cancelled = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([
      sleep(ms, signal).then(
        () => !signal.aborted,
        (error: unknown) => {
          if (signal.aborted || isAbortError(error)) return false;
          throw error;
        },
      ),
      cancelled,
    ]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function defaultFingerprint(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}`;
  } catch {
    return "thrown: <unprintable>";
  }
}

/**
 * How a run retries a failed model call. Only a `retryable` failure is retried, never
 * twice in a row with the same fingerprint (class, HTTP status, message) unless the
 * failure named its own wait (`Retry-After`: waiting is what changes it), never past
 * `maxAttempts` per step and never past the run's time budget. A failure that names how
 * long to wait (an HTTP `Retry-After`, `retryAfterMs` on the error) waits at least that
 * long; a wait that would end past the time budget is not waited: the run stops at once
 * `max_duration`, as it would have then. Every other failure
 * ends the run as before. Tools are never retried by the runtime: a tool may have
 * changed something, so its errors go back to the model, which decides.
 */
export interface ModelRetryOptions {
  readonly policy: RetryPolicy;
  /** Waits `ms`, or less if the signal aborts. Default: a timer. Tests pass a fake. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The jitter's randomness, in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /**
   * Another model, asked once the attempts at the run's own model have failed retryably
   * (`maxAttempts` of them, or fewer when the same failure came twice): from that step on
   * the run stays on it, with the same policy. Its replies name `model` in the trace and
   * the result, and cost at its own `price` (null: unknown; absent: the run's `price`).
   */
  readonly fallback?: {
    readonly provider: Provider;
    readonly model: string;
    readonly price?: ModelPrice | null;
  };
  /** What a wait the server named leads to; `retryWait` by default (lesson 38 passes the learner's). */
  readonly wait?: RetryWait;
}

/** Longest `Retry-After` honoured without a time budget; a longer one is not waited. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** A retry the server named its wait for (`Retry-After`), as the run decides on it. */
export interface RetryWaitInput {
  /** The backoff with jitter the run's policy chose for this attempt (`decideRetry`). */
  readonly backoffMs: number;
  /** How long the server asked to wait, in milliseconds. */
  readonly retryAfterMs: number;
  /** The run's time budget left, in milliseconds; undefined when it has none. */
  readonly remainingMs: number | undefined;
}

/**
 * `wait`: sleep `ms`, then the next attempt. `past_budget`: the wait would end at or past the
 * run's time budget, so it is not waited: the run stops now (`max_duration`), as it would
 * have then. `too_long`: no budget, and the wait is longer than `MAX_RETRY_AFTER_MS`: the
 * run gives up on this model.
 */
export type RetryWaitDecision =
  | { readonly kind: "wait"; readonly ms: number }
  | { readonly kind: "past_budget"; readonly ms: number }
  | { readonly kind: "too_long"; readonly ms: number };

export type RetryWait = (input: RetryWaitInput) => RetryWaitDecision;

/**
 * The wait before retrying a failure whose server said when to come back (docs/contracts.md §7,
 * lesson 38): at least what the server asked, never less than the policy's own backoff,
 * and never a wait the time budget cannot hold.
 */
export const retryWait: RetryWait = ({ backoffMs, retryAfterMs, remainingMs }) => {
  const ms = Math.max(backoffMs, retryAfterMs);
  if (remainingMs !== undefined && ms >= remainingMs) return { kind: "past_budget", ms };
  if (remainingMs === undefined && ms > MAX_RETRY_AFTER_MS) return { kind: "too_long", ms };
  return { kind: "wait", ms };
};
