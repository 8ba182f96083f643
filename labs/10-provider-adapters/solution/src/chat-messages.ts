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
        if (message.type === "tool_call") {
          const call = {
            id: message.callId,
            type: "function" as const,
            function: { name: message.tool, arguments: JSON.stringify(message.input) },
          };
          // 同一次回复的文字和工具调用属于同一条 assistant 消息：紧跟在 assistant 之后才合并，
          // 中间隔着 tool 结果就是下一次回复了。
          const last = out.at(-1);
          if (last?.role === "assistant") {
            last.tool_calls = [...(last.tool_calls ?? []), call];
          } else {
            out.push({ role: "assistant", content: null, tool_calls: [call] });
          }
          break;
        }
        // #endregion exercise
        const text = message.type === "message" ? message.content : message.summary;
        out.push({ role: "assistant", content: text });
        break;
      }
      case "tool":
        // #region exercise
        // 结果用 role tool 回给模型，tool_call_id 就是它所回答的那次调用的 id。
        out.push({ role: "tool", tool_call_id: message.callId, content: message.content });
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
