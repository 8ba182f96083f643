import type { CompactionChoice, CompactionQuestion } from "@coding-agent/agent-core";

/**
 * 一次请求超出上下文预算时，挑出要换成存根的工具结果。`question` 里有：
 * `messages`（这次请求的历史，最早的在前）、`compacted`（之前的请求已经压缩过的调用 id，
 * 它们保持压缩）、`tokensWith(callIds)`（把这些结果——连同已压缩的——换成存根之后，
 * 请求估计有多少 token）、`maxContextTokens`（预算）。
 * 放得下就返回 `{ kind: "fits", callIds }`（这次新压缩的调用 id，最早的在前；不用压缩就是空的）；
 * 不能压缩的部分本身就放不下，返回 `{ kind: "exhausted", tokens }`（其余全部压缩后仍有的 token）。
 */
export function chooseCompaction(question: CompactionQuestion): CompactionChoice {
  const { messages, compacted, tokensWith, maxContextTokens } = question;
  // #region exercise
  // TODO(lab-25): 现在什么都不压缩：请求超出预算也原样发出去。改成：
  //   - 找出可以压缩的工具结果：最后两轮模型回复（一轮是连在一起的 assistant 消息和它们的结果）
  //     之前的、还不在 compacted 里的，最早的在前；工具结果以外的消息一律不动；
  //   - 不压缩也放得下，就什么都不选；
  //   - 把它们全部压缩还放不下，就是 exhausted（带上那时的 token 数）；
  //   - 否则选出放得下所需的最少几条——从最早的开始。
  void messages;
  void compacted;
  void tokensWith;
  void maxContextTokens;
  return { kind: "fits", callIds: [] };
  // #endregion exercise
}
