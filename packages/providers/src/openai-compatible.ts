import type { Provider } from "@coding-agent/agent-core";
import { InvalidProviderOptionsError } from "./errors.ts";
import { checkShape, postJson } from "./http.ts";
import { fromChatCompletion, toChatMessages, toChatTools } from "./openai-messages.ts";
import { createChatStreamAssembler } from "./openai-stream.ts";
import { type ChatCompletionRequest, ChatCompletionSchema } from "./openai-wire.ts";
import {
  checkOptions,
  originOf,
  type ProviderOptions,
  redactorFor,
  systemPromptFor,
} from "./options.ts";
import { VENDOR_PRESETS } from "./presets.ts";
import { postStream } from "./sse.ts";

/** OpenAI's own endpoint; OpenAI-style base URLs include `/v1`. */
export const OPENAI_DEFAULT_BASE_URL = VENDOR_PRESETS.openai.baseUrl;

/**
 * A provider for any server that speaks OpenAI Chat Completions (OpenAI, Ollama,
 * vLLM, LM Studio, DeepSeek…): `POST <baseUrl>/chat/completions` with
 * `Authorization: Bearer <apiKey>` (left out when there is no key, as local servers
 * need none). Each call sends the whole history; the run's signal aborts it. Replies
 * stream (`stream: true` with `stream_options.include_usage`, so the usage comes in the
 * last chunk) unless `stream: false`; the tool calls' argument pieces are joined by index
 * and the reply is read only at `[DONE]`, into the same response a plain request gives.
 */
export function createOpenAICompatibleProvider(options: ProviderOptions): Provider {
  const preset = VENDOR_PRESETS[options.vendor ?? "openai"];
  if (preset.wire !== "openai") {
    throw new InvalidProviderOptionsError(`${preset.label} 不是 OpenAI 兼容接口`);
  }
  const base = checkOptions(options, preset.baseUrl);
  const url = `${base}/chat/completions`;
  const origin = originOf("openai", base, options.model);
  const effort =
    options.reasoningEffort === undefined ? {} : preset.effortFields(options.reasoningEffort);
  const redact = redactorFor(options.apiKey);
  const headers: Record<string, string> =
    options.apiKey === undefined || options.apiKey === ""
      ? {}
      : { authorization: `Bearer ${options.apiKey}` };
  return {
    async complete(request, signal) {
      const post = {
        vendor: preset.label,
        url,
        headers,
        signal,
        redact,
        parseRetryAfter: options.parseRetryAfter,
      };
      const tools = toChatTools(request.tools);
      const system = await systemPromptFor(options, request);
      const body: ChatCompletionRequest = {
        model: options.model,
        messages: toChatMessages(request.messages, system, origin),
        ...(tools.length === 0 ? {} : { tools }),
        ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
        ...effort,
      };
      if (options.stream === false) {
        const completion = await postJson({ ...post, body, schema: ChatCompletionSchema });
        return { ...fromChatCompletion(completion, request.step, origin), model: options.model };
      }
      const assembler = createChatStreamAssembler({
        ...post,
        onText: options.onText,
        onReasoning: options.onReasoning,
        addToolCallDelta: options.addToolCallDelta,
      });
      const outcome = await postStream({
        ...post,
        body: { ...body, stream: true, stream_options: { include_usage: true } },
        schema: ChatCompletionSchema,
        endEvent: "[DONE]",
        onEvent: (event) => assembler.onEvent(event),
      });
      const completion =
        outcome.kind === "json"
          ? outcome.value
          : checkShape({ ...post, schema: ChatCompletionSchema }, 200, assembler.completion(), "");
      return { ...fromChatCompletion(completion, request.step, origin), model: options.model };
    },
  };
}
