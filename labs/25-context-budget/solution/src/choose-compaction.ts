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
  // 给每条消息标上它属于第几轮模型回复：一轮是连在一起的 assistant 消息，加上它们的结果。
  const replyOf: number[] = [];
  let reply = 0;
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant" && messages[index - 1]?.role !== "assistant") reply += 1;
    replyOf.push(reply);
  }
  // 能压缩的：最后两轮之前的工具结果，还没压缩过的，最早的在前。
  // 目标、finish_rejected 理由都不是工具结果，永远不会被选中。
  const candidates = messages.flatMap((message, index) =>
    message.role === "tool" &&
    (replyOf[index] as number) <= reply - 2 &&
    !compacted.has(message.callId)
      ? [message.callId]
      : [],
  );
  if (tokensWith([]) <= maxContextTokens) return { kind: "fits", callIds: [] };
  const floor = tokensWith(candidates);
  if (floor > maxContextTokens) return { kind: "exhausted", tokens: floor };
  // 放得下所需的最少几条：多压缩一条，请求只会更小，所以可以二分。
  let low = 1;
  let high = candidates.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (tokensWith(candidates.slice(0, middle)) <= maxContextTokens) high = middle;
    else low = middle + 1;
  }
  return { kind: "fits", callIds: candidates.slice(0, low) };
  // #endregion exercise
}
