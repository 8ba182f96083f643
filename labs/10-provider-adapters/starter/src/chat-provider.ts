import type { Provider } from "@coding-agent/agent-core";
import { fromChatCompletion, toChatMessages } from "./chat-messages.ts";
import { ChatCompletionSchema } from "./chat-wire.ts";

/** Where and as whom the provider talks. */
export interface ChatProviderOptions {
  /** OpenAI style: includes `/v1`; requests go to `<baseUrl>/chat/completions`. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string;
}

/**
 * A provider for an OpenAI-compatible server over `fetch`. Any failure rejects, so
 * the loop ends the run `failed / provider_error` with the message; the run's
 * signal aborts the request.
 */
export function createChatProvider(options: ChatProviderOptions): Provider {
  return {
    async complete(request, signal) {
      const tools = request.tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }));
      const response = await fetch(`${options.baseUrl}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${options.apiKey}`,
        },
        body: JSON.stringify({
          model: options.model,
          messages: toChatMessages(request.messages),
          ...(tools.length === 0 ? {} : { tools }),
        }),
        signal,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`HTTP ${response.status}：${text.slice(0, 300)}`);
      return fromChatCompletion(ChatCompletionSchema.parse(JSON.parse(text)), request.step);
    },
  };
}
