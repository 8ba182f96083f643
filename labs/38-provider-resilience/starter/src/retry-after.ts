import { MAX_RETRY_AFTER_MS, type RetryWait } from "@coding-agent/agent-core";

/**
 * 429/503 响应的 Retry-After，换算成毫秒（docs/contracts.md §7）：
 * - 一个非负整数：秒数；
 * - 一个 HTTP 日期：从响应自己的 Date 头算起（本机的钟可能不准），没有 Date 头才从 now() 算起；
 *   已经过去的日期是 0；
 * - 没有这个头、或者读不懂（小数、负数、随便一句话）：undefined，按普通的退避重试。
 */
export function parseRetryAfter(
  value: string | null,
  date: string | null = null,
  now: () => number = Date.now,
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  // #region exercise
  // TODO(lab-38): Retry-After 的数字是秒，不是毫秒：现在 "2" 只等 2 ms，服务器还没恢复就又被打了一次。
  if (/^\d+$/.test(text)) return Number(text);
  // #endregion exercise
  const at = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(at)) return undefined;
  // #region exercise
  // TODO(lab-38): 现在从本机的钟算起：本机快了几秒，就少等几秒（甚至一点不等）。
  //   改成：响应有 Date 头（而且读得懂）就从它算起，没有才用 now()。
  void date;
  return Math.max(0, at - now());
  // #endregion exercise
}

/**
 * 服务器说了要等多久（Retry-After）时，重试之前等多久（docs/contracts.md §7）：
 * - 至少等服务器要的时间，也不少于策略自己的退避（backoffMs）；
 * - 这样等下去会用完（或超过）剩余的时间预算：不等，{ kind: "past_budget" }，运行立即停止；
 * - 没有时间预算，而要等的超过 MAX_RETRY_AFTER_MS（一分钟）：不等，{ kind: "too_long" }；
 * - 否则 { kind: "wait", ms }。
 */
export const retryWait: RetryWait = ({ backoffMs, retryAfterMs, remainingMs }) => {
  // #region exercise
  // TODO(lab-38): 现在服务器说多久就等多久：比退避还短的 Retry-After: 0 让重试一个接一个地打过去；
  //   等到预算用完才发现没有时间了；没有预算时一个 Retry-After: 3600 让运行挂上一小时。
  //   改成 JSDoc 写的四条。
  void backoffMs;
  void remainingMs;
  void MAX_RETRY_AFTER_MS;
  return { kind: "wait", ms: retryAfterMs };
  // #endregion exercise
};
