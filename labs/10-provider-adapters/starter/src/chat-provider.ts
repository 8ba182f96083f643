import type { Provider } from "@coding-agent/agent-core";
import { fromChatCompletion, toChatMessages } from "./chat-messages.ts";
import { ChatCompletionSchema } from "./chat-wire.ts";

/** Provider 和谁说话、以什么身份说话。 */
export interface ChatProviderOptions {
  /** OpenAI 的写法：包含 `/v1`；请求发往 `<baseUrl>/chat/completions`。 */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string;
}

/**
 * 通过 `fetch` 访问 OpenAI 兼容服务器的 Provider。任何失败都会拒绝，循环于是以
 * `failed / provider_error` 结束运行并带上消息；运行的 signal 会中止请求。
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
