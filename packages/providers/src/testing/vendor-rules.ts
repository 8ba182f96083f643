import { isDeepStrictEqual } from "node:util";
import type { Rule } from "./vendor-imitation.ts";

/**
 * Vendors' documented rules about reasoning, as `Rule`s for `startImitation`. Each cites
 * where the vendor writes it; a rule answers the vendor's own 400 message when broken.
 */

/** The reasoning_content rule DeepSeek, Kimi and GLM document, with each vendor's message. */
export const reasoningContentKept =
  (message: (index: number) => string): Rule =>
  ({ body, sent }) => {
    const messages = body.messages as Record<string, unknown>[];
    let reply = 0;
    for (const [index, entry] of messages.entries()) {
      if (entry.role !== "assistant") continue;
      const original = sent[reply];
      reply += 1;
      if (original?.tool_calls === undefined) continue;
      if (entry.reasoning_content !== original.reasoning_content) return message(index);
    }
    return undefined;
  };

/** DeepSeek's thinking mode (api-docs.deepseek.com/guides/thinking_mode). */
// "For turns that do perform tool calls, the reasoning_content must be fully passed back
// to the API in all subsequent requests. If your code does not correctly pass back
// reasoning_content, the API will return a 400 error."
const passedBack = reasoningContentKept(
  () => "The `reasoning_content` in the thinking mode must be passed back to the API.",
);
// The Chat API's roles are system, user, assistant and tool; `developer` is rejected.
const noDeveloper: Rule = ({ body }) =>
  (body.messages as { role: string }[]).some((message) => message.role === "developer")
    ? "Failed to deserialize the JSON body into the target type: messages[0].role: unknown variant `developer`"
    : undefined;
// Thinking mode: "logprobs, top_logprobs" are not supported (setting them is an error).
const noLogprobs: Rule = ({ body }) =>
  body.logprobs !== undefined || body.top_logprobs !== undefined
    ? "logprobs is not supported in thinking mode"
    : undefined;
export const DEEPSEEK_RULES: readonly Rule[] = [passedBack, noDeveloper, noLogprobs];

// "When using extended thinking with tool use … you must pass thinking blocks back to the
// API for the last assistant message", complete and unmodified: the signature is checked.
// A redacted_thinking block goes back the same way. budget_tokens is at least 1024 and
// below max_tokens.
const signedBlocks: Rule = ({ body, sent }) => {
  const messages = body.messages as { role: string; content: unknown }[];
  let reply = 0;
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    const original = (sent[reply]?.content ?? []) as Record<string, unknown>[];
    reply += 1;
    const blocks = (Array.isArray(message.content) ? message.content : []) as Record<
      string,
      unknown
    >[];
    const thoughts = original.filter(
      (b) => b.type === "thinking" || b.type === "redacted_thinking",
    );
    const isLast = !messages.slice(index + 1).some((m) => m.role === "assistant");
    if (isLast && blocks.some((b) => b.type === "tool_use")) {
      const first = blocks[0]?.type;
      if (first !== "thinking" && first !== "redacted_thinking") {
        return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
      }
    }
    for (const [at, block] of blocks.entries()) {
      if (block.type !== "thinking" && block.type !== "redacted_thinking") continue;
      if (!isDeepStrictEqual(block, thoughts[at])) {
        return `messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  return undefined;
};
const budget: Rule = ({ body }) => {
  const field = body.thinking as { type: string; budget_tokens?: number } | undefined;
  if (field?.type !== "enabled") return undefined;
  const tokens = field.budget_tokens ?? 0;
  if (tokens < 1024) return "thinking.budget_tokens: Input should be greater than or equal to 1024";
  return tokens < Number(body.max_tokens)
    ? undefined
    : "`max_tokens` must be greater than `thinking.budget_tokens`";
};

export const ANTHROPIC_THINKING_RULES: readonly Rule[] = [signedBlocks, budget];
