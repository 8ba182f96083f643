import {
  checkPolicy,
  type RetryDecision,
  type RetryInput,
  type RetryPolicy,
} from "@coding-agent/agent-core";

/**
 * Whether to retry after a failed attempt, and after how long. Only `retryable` is
 * retried; never past `policy.maxAttempts`; never when this failure's fingerprint equals
 * the one before it. The delay is exponential backoff with equal jitter: with
 * `ceiling = min(maxDelayMs, baseDelayMs * 2^(attempt-1))`, half the ceiling plus
 * `random()` times the other half, rounded. Pure: `random` (in [0, 1)) is injected.
 */
export function decideRetry(
  input: RetryInput,
  policy: RetryPolicy,
  random: () => number,
): RetryDecision {
  checkPolicy(policy);
  // #region exercise
  if (input.failureClass !== "retryable") return { retry: false, reason: "not_retryable" };
  if (input.attempt >= policy.maxAttempts) return { retry: false, reason: "attempts_exhausted" };
  if (input.previousFingerprint === input.fingerprint) {
    return { retry: false, reason: "same_failure" };
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (input.attempt - 1));
  return { retry: true, delayMs: Math.round(ceiling / 2 + (random() * ceiling) / 2) };
  // #endregion exercise
}
