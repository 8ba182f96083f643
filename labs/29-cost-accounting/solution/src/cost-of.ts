import type { ModelPrice, TokenUsage } from "@coding-agent/agent-core";

/** 价格的单位：美元 / 百万 token。 */
const PER = 1_000_000;

/**
 * 一次模型调用花了多少美元。
 * usage：这次调用的 token（inputTokens、outputTokens；cachedInputTokens 是输入里命中提示缓存的部分，
 * 可能没有）。price：这个模型的价格（inputPerMTok、outputPerMTok；cachedInputPerMTok 可能没有）。
 * 没有 usage 的回复不花钱。
 */
export function costOf(usage: TokenUsage | undefined, price: ModelPrice): number {
  // #region exercise
  if (usage === undefined) return 0;
  // 缓存命中的 token 是输入的一部分（OpenAI 就这样计数）：不会比输入还多。
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  // 没有缓存价的模型，命中缓存的 token 按普通输入价收费。
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  return (
    ((usage.inputTokens - cached) * price.inputPerMTok +
      cached * cachedPrice +
      usage.outputTokens * price.outputPerMTok) /
    PER
  );
  // #endregion exercise
}
