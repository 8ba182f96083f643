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
import { InvalidProviderOptionsError } from "./errors.ts";
import { checkShape, postJson } from "./http.ts";
import {
  checkOptions,
  originOf,
  type ProviderOptions,
  redactorFor,
  systemPromptFor,
} from "./options.ts";
import { type ReasoningEffort, VENDOR_PRESETS } from "./presets.ts";
import { postStream } from "./sse.ts";

/** Anthropic's own endpoint; Anthropic-style base URLs leave out `/v1`. */
export const ANTHROPIC_DEFAULT_BASE_URL = VENDOR_PRESETS.anthropic.baseUrl;

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
  // Thinking blocks are signed by the vendor behind the endpoint, whichever model wrote them.
  const origin = originOf("anthropic", base, "");
  const thinking = thinkingFor(options);
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
        max_tokens: thinking.maxTokens,
        ...(system === undefined ? {} : { system }),
        messages: toAnthropicMessages(request.messages, origin),
        ...(tools.length === 0 ? {} : { tools }),
        ...(thinking.field === undefined ? {} : { thinking: thinking.field }),
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
        return { ...fromAnthropicMessage(message, origin), model: options.model };
      }
      const assembler = createMessageStreamAssembler({
        ...post,
        onText: options.onText,
        onReasoning: options.onReasoning,
      });
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
      return { ...fromAnthropicMessage(message, origin), model: options.model };
    },
  };
}

/**
 * The thinking budget of each effort (Anthropic's extended thinking, "budget_tokens": at
 * least 1024, and below `max_tokens`).
 */
export const ANTHROPIC_THINKING_BUDGETS: Readonly<
  Record<Exclude<ReasoningEffort, "none">, number>
> = { low: 1024, medium: 4096, high: 16384, max: 32768 };

/**
 * The `thinking` field and `max_tokens` for the options: no effort leaves the endpoint's
 * default (DeepSeek's Anthropic-format endpoint thinks by default, Claude does not); `none`
 * turns it off; any other effort turns it on with its budget, and `max_tokens` left unset
 * leaves room for the budget and a reply. A `maxTokens` that leaves no room is an error.
 */
function thinkingFor(options: ProviderOptions): {
  readonly field?: AnthropicRequest["thinking"];
  readonly maxTokens: number;
} {
  const effort = options.reasoningEffort;
  if (effort === undefined) return { maxTokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
  if (effort === "none") {
    return {
      field: { type: "disabled" },
      maxTokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    };
  }
  const budget = ANTHROPIC_THINKING_BUDGETS[effort];
  if (options.maxTokens !== undefined && options.maxTokens <= budget) {
    throw new InvalidProviderOptionsError(
      `maxTokens（${options.maxTokens}）必须大于 reasoningEffort ${effort} 的思考预算 ${budget} tokens`,
    );
  }
  return {
    field: { type: "enabled", budget_tokens: budget },
    maxTokens: options.maxTokens ?? budget + ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
}
