import type { Message, ModelResponse } from "@coding-agent/agent-core";
import type { ChatCompletion, ChatMessage } from "./chat-wire.ts";

/**
 * The run's history as Chat Completions messages. The API checks the pairing:
 * every `tool` message must answer a `tool_calls` entry of the assistant message
 * just before it (by `tool_call_id`), and every such entry must be answered before
 * anything else follows. The loop records one reply as its text, then all its
 * calls, then their results, so consecutive calls belong to one assistant message.
 */
export function toChatMessages(messages: readonly Message[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: message.content });
        break;
      case "assistant": {
        // #region exercise
        // TODO(lab-10): 工具调用要写进 assistant 消息的 tool_calls：每个调用是
        // { id, type: "function", function: { name, arguments } }，arguments 是 JSON 文本。
        // 同一次回复的文字和多个调用放进同一条 assistant 消息。现在它被当成一句话发出去，
        // 模型看不到自己调用过工具，也没有 id 可以和结果配对。
        if (message.type === "tool_call") {
          out.push({ role: "assistant", content: `调用 ${message.tool}` });
          break;
        }
        // #endregion exercise
        const text = message.type === "message" ? message.content : message.summary;
        out.push({ role: "assistant", content: text });
        break;
      }
      case "tool":
        // #region exercise
        // TODO(lab-10): 结果要用 role "tool" 回给模型，并带上它所回答那次调用的 tool_call_id。
        out.push({ role: "user", content: message.content });
        // #endregion exercise
        break;
      default: {
        const unreachable: never = message;
        throw new TypeError(`unhandled message ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return out;
}

/**
 * A completion as the loop's response: text and no tool call is `finish` with the
 * text as summary; otherwise every tool call becomes a `tool_call` action, in
 * order, so the loop runs and answers all of them before it asks again. A call
 * without an id (Ollama) gets one made from the step and its position.
 */
export function fromChatCompletion(completion: ChatCompletion, step: number): ModelResponse {
  const message = completion.choices[0]?.message;
  const usage =
    completion.usage == null
      ? {}
      : {
          usage: {
            inputTokens: completion.usage.prompt_tokens,
            outputTokens: completion.usage.completion_tokens,
          },
        };
  const calls = message?.tool_calls ?? [];
  if (calls.length === 0) {
    return { action: { type: "finish", summary: message?.content ?? "" }, ...usage };
  }
  const actions = calls.map((call, index) => ({
    type: "tool_call",
    tool: call.function.name,
    callId: call.id || `call_${step}_${index + 1}`,
    input: JSON.parse(call.function.arguments) as unknown,
  }));
  return { actions, ...usage };
}
