import {
  checkPolicy,
  type RetryDecision,
  type RetryInput,
  type RetryPolicy,
} from "@coding-agent/agent-core";

/**
 * 一次尝试失败后要不要重试、等多久。只重试 `retryable`；不超过 `policy.maxAttempts`；
 * 这次失败的指纹与上一次相同时不重试。等待时间是带“等量抖动”的指数退避：设
 * `ceiling = min(maxDelayMs, baseDelayMs * 2^(attempt-1))`，等待上限的一半，再加上
 * `random()` 乘以另一半，四舍五入。纯函数：`random`（取值在 [0, 1)）由参数注入。
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
