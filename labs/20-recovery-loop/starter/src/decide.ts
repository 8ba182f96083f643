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
  // TODO(lab-20): 现在的写法什么都重试，而且每次都等一样久。
  //   目标：只在再试一次可能换来不同结果时重试，不重试时给出放弃的理由（README 开头的表）；
  //   要重试时，等待随失败次数增长，又不让许多同时失败的客户端在同一刻一起回来（见上面的注释）。
  //   约束：纯函数，随机只来自注入的 random；等多少次都不超过 policy.maxDelayMs。
  void input;
  void random;
  return { retry: true, delayMs: policy.baseDelayMs };
  // #endregion exercise
}
