import type { Provider } from "@coding-agent/agent-core";
import {
  fromAnthropicMessage,
  toAnthropicMessages,
  toAnthropicTools,
} from "./anthropic-messages.ts";
import {
  ANTHROPIC_VERSION,
  AnthropicMessageSchema,
  type AnthropicRequest,
} from "./anthropic-wire.ts";
import { postJson } from "./http.ts";
import { checkOptions, type ProviderOptions, redactorFor, systemPromptFor } from "./options.ts";

/** Anthropic's own endpoint; Anthropic-style base URLs leave out `/v1`. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/** `max_tokens` sent when the options give none (the API requires one). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * A provider for the Anthropic Messages API: `POST <baseUrl>/v1/messages` with
 * `x-api-key`, `anthropic-version` and the required `max_tokens`. Each call sends
 * the whole history; the run's signal aborts it.
 */
export function createAnthropicProvider(options: ProviderOptions): Provider {
  const base = checkOptions(options, ANTHROPIC_DEFAULT_BASE_URL);
  const url = `${base}/v1/messages`;
  const redact = redactorFor(options.apiKey);
  const headers: Record<string, string> = {
    "anthropic-version": ANTHROPIC_VERSION,
    ...(options.apiKey === undefined || options.apiKey === ""
      ? {}
      : { "x-api-key": options.apiKey }),
  };
  return {
    async complete(request, signal) {
      const tools = toAnthropicTools(request.tools);
      const system = await systemPromptFor(options, request);
      const body: AnthropicRequest = {
        model: options.model,
        max_tokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
        ...(system === undefined ? {} : { system }),
        messages: toAnthropicMessages(request.messages),
        ...(tools.length === 0 ? {} : { tools }),
      };
      const message = await postJson({
        vendor: "Anthropic",
        url,
        headers,
        body,
        schema: AnthropicMessageSchema,
        signal,
        redact,
      });
      return fromAnthropicMessage(message);
    },
  };
}
