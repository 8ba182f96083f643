import type { Provider } from "@coding-agent/agent-core";
import { postJson } from "./http.ts";
import { fromChatCompletion, toChatMessages, toChatTools } from "./openai-messages.ts";
import { type ChatCompletionRequest, ChatCompletionSchema } from "./openai-wire.ts";
import { checkOptions, type ProviderOptions, redactorFor, systemPromptFor } from "./options.ts";

/** OpenAI's own endpoint; OpenAI-style base URLs include `/v1`. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * A provider for any server that speaks OpenAI Chat Completions (OpenAI, Ollama,
 * vLLM, LM Studio, DeepSeek…): `POST <baseUrl>/chat/completions` with
 * `Authorization: Bearer <apiKey>` (left out when there is no key, as local servers
 * need none). Each call sends the whole history; the run's signal aborts it.
 */
export function createOpenAICompatibleProvider(options: ProviderOptions): Provider {
  const base = checkOptions(options, OPENAI_DEFAULT_BASE_URL);
  const url = `${base}/chat/completions`;
  const redact = redactorFor(options.apiKey);
  const headers: Record<string, string> =
    options.apiKey === undefined || options.apiKey === ""
      ? {}
      : { authorization: `Bearer ${options.apiKey}` };
  return {
    async complete(request, signal) {
      const tools = toChatTools(request.tools);
      const body: ChatCompletionRequest = {
        model: options.model,
        messages: toChatMessages(request.messages, await systemPromptFor(options, request)),
        ...(tools.length === 0 ? {} : { tools }),
        ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
      };
      const completion = await postJson({
        vendor: "OpenAI 兼容接口",
        url,
        headers,
        body,
        schema: ChatCompletionSchema,
        signal,
        redact,
      });
      return fromChatCompletion(completion, request.step);
    },
  };
}
