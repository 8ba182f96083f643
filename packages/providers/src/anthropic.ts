import type { Provider } from "@coding-agent/agent-core";
import {
  fromAnthropicMessage,
  toAnthropicMessages,
  toAnthropicTools,
} from "./anthropic-messages.ts";
import { createMessageStreamAssembler } from "./anthropic-stream.ts";
import {
  ANTHROPIC_VERSION,
  AnthropicMessageSchema,
  type AnthropicRequest,
} from "./anthropic-wire.ts";
import { checkShape, postJson } from "./http.ts";
import { checkOptions, type ProviderOptions, redactorFor, systemPromptFor } from "./options.ts";
import { postStream } from "./sse.ts";

/** Anthropic's own endpoint; Anthropic-style base URLs leave out `/v1`. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/** `max_tokens` sent when the options give none (the API requires one). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * A provider for the Anthropic Messages API: `POST <baseUrl>/v1/messages` with
 * `x-api-key`, `anthropic-version` and the required `max_tokens`. Each call sends
 * the whole history; the run's signal aborts it. Replies stream (`stream: true`) unless
 * `stream: false`: text and `input_json_delta` pieces are joined per content block, the
 * usage read from `message_start` and `message_delta`, and the reply used only at
 * `message_stop`, as the same response a plain request gives.
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
      const post = {
        vendor: "Anthropic",
        url,
        headers,
        signal,
        redact,
        parseRetryAfter: options.parseRetryAfter,
      };
      if (options.stream === false) {
        const message = await postJson({ ...post, body, schema: AnthropicMessageSchema });
        return { ...fromAnthropicMessage(message), model: options.model };
      }
      const assembler = createMessageStreamAssembler({ ...post, onText: options.onText });
      const outcome = await postStream({
        ...post,
        body: { ...body, stream: true },
        schema: AnthropicMessageSchema,
        endEvent: "message_stop",
        onEvent: (event) => assembler.onEvent(event),
      });
      const message =
        outcome.kind === "json"
          ? outcome.value
          : checkShape({ ...post, schema: AnthropicMessageSchema }, 200, assembler.message(), "");
      return { ...fromAnthropicMessage(message), model: options.model };
    },
  };
}
