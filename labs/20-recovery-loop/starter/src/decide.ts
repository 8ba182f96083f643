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
  // TODO(lab-20): 决定这次失败之后要不要重试、等多久：
  //   - 只有 input.failureClass 为 "retryable" 才重试，其余给 reason "not_retryable"；
  //   - input.attempt 是刚失败的第几次（从 1 起），到了 policy.maxAttempts 给 "attempts_exhausted"；
  //   - 与上一次的指纹（previousFingerprint）相同，给 "same_failure"：同样的失败连续两次，等待不会改变它；
  //   - 等待：ceiling = min(maxDelayMs, baseDelayMs * 2^(attempt-1))，等 ceiling 的一半，
  //     再加 random() 乘另一半，四舍五入（Math.round）。
  //   现在的写法什么都重试，而且每次都等一样久。
  void input;
  void random;
  return { retry: true, delayMs: policy.baseDelayMs };
  // #endregion exercise
}
