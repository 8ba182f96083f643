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
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // #endregion exercise
  const at = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(at)) return undefined;
  // #region exercise
  const sent = date === null ? Number.NaN : Date.parse(date);
  return Math.max(0, at - (Number.isNaN(sent) ? now() : sent));
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
  const ms = Math.max(backoffMs, retryAfterMs);
  if (remainingMs !== undefined && ms >= remainingMs) return { kind: "past_budget", ms };
  if (remainingMs === undefined && ms > MAX_RETRY_AFTER_MS) return { kind: "too_long", ms };
  return { kind: "wait", ms };
  // #endregion exercise
};
