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
  // TODO(lab-29): 现在每次调用都不花钱：成本一直是 0，--max-cost-usd 永远不会停下。改成：
  //   - 输入、输出各按自己的价格计费，价格是每百万 token（PER）的美元数；
  //   - cachedInputTokens 是输入的一部分（不会比输入多），这部分按 cachedInputPerMTok 计费，
  //     模型没有缓存价时按普通输入价；
  //   - 没有 usage 就是 0。
  void usage;
  void price;
  void PER;
  return 0;
  // #endregion exercise
}
