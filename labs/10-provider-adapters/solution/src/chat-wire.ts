import { z } from "zod";

/**
 * OpenAI Chat Completions 的线上格式（`POST <base>/chat/completions`），只包括本课发送和读取的部分。
 */

/** assistant 消息里的一个工具调用：`arguments` 是 JSON 文本，不是对象。 */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** 适配器发送的一条消息。 */
export type ChatMessage =
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: ChatToolCall[];
      /** 思考模式的模型（DeepSeek、Kimi、GLM、Qwen）写下的思考，交还时放在这里。 */
      reasoning_content?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string };

/** 文档里描述的成功响应（服务器会多加字段；忽略它们）。 */
export const ChatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          /** 思考模式下，模型在回复之前写下的思考。 */
          reasoning_content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                // Ollama 和其他一些服务器不给 id。
                id: z.string().nullish(),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.int(), completion_tokens: z.int() }).nullish(),
});

/** 成功的响应。 */
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;
