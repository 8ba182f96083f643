import type { ModelRequest } from "@coding-agent/agent-core";
import { toAnthropicMessages, toAnthropicTools } from "./anthropic-messages.ts";
import { toChatMessages, toChatTools } from "./openai-messages.ts";

/** Which wire format a request is estimated in. */
export type TokenEstimateStyle = "openai" | "anthropic";

/** Options of `createTokenEstimator`. */
export interface TokenEstimatorOptions {
  readonly style: TokenEstimateStyle;
  /**
   * The system prompt the provider sends before the messages: a text, or a getter asked
   * on every estimate (a prompt that grows with the run's `AGENTS.md` files).
   */
  readonly system?: string | (() => string | undefined);
}

/**
 * Bytes per token of the conservative estimate: below what tokenizers reach on code and
 * English (about 4) and equal to one CJK character (3 bytes in UTF-8), so it over-counts.
 */
const BYTES_PER_TOKEN = 3;

/**
 * Estimates a request's input tokens as the provider sends it: the JSON of its wire
 * messages and tools (system prompt included; the JSON punctuation over-counts a little,
 * which errs on the safe side). `openai` counts with the real tokenizer (`gpt-tokenizer`,
 * o200k_base, the GPT-4o / o-series encoding, loaded on the first call); `anthropic` has
 * no public tokenizer and is estimated as UTF-8 bytes / 3, rounded up.
 */
export async function createTokenEstimator(
  options: TokenEstimatorOptions,
): Promise<(request: ModelRequest) => number> {
  // The request's own system prompt, else the option's (the provider sends the same one).
  const systemOf = (request: ModelRequest) =>
    request.system ?? (typeof options.system === "function" ? options.system() : options.system);
  if (options.style === "openai") {
    const { countTokens } = await import("gpt-tokenizer");
    return (request) =>
      countTokens(
        JSON.stringify({
          messages: toChatMessages(request.messages, systemOf(request)),
          tools: toChatTools(request.tools),
        }),
      );
  }
  return (request) => {
    const system = systemOf(request);
    const wire = JSON.stringify({
      ...(system === undefined ? {} : { system }),
      messages: toAnthropicMessages(request.messages),
      tools: toAnthropicTools(request.tools),
    });
    return estimateTokensConservatively(wire);
  };
}

const utf8 = new TextEncoder();

/** UTF-8 bytes / 3, rounded up: a token count no real tokenizer exceeds by much. */
export function estimateTokensConservatively(text: string): number {
  return Math.ceil(utf8.encode(text).length / BYTES_PER_TOKEN);
}
