import type { AssistantMessage, Message, ModelResponse } from "@coding-agent/agent-core";
import type { ChatCompletion, ChatMessage } from "./chat-wire.ts";

/**
 * 把运行的历史写成 Chat Completions 消息。API 会检查配对：每条 `tool` 消息都必须回答紧挨在它前面的
 * assistant 消息里的一个 `tool_calls` 条目（按 `tool_call_id`），每个这样的条目都必须在其他消息之前
 * 得到回答。循环把一次回复记成：它的文本，然后它的全部调用，然后这些调用的结果，所以连续的调用属于
 * 同一条 assistant 消息。
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
          out.push({ role: "assistant", content: `调用 ${message.tool}`, ...handBack(message) });
          break;
        }
        // #endregion exercise
        const text = message.type === "message" ? message.content : message.summary;
        out.push({ role: "assistant", content: text, ...handBack(message) });
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
 * 一次回复带着的思考，要交还给写下它的模型。思考模式下，模型的回复除了文字和工具调用，还带着
 * `reasoning_content`；循环把它记在这次回复的第一条消息上（`message.reasoning`）。DeepSeek 的文档
 * 要求：做了工具调用的那次回复，它的 `reasoning_content` 在之后的每个请求里都要原样放回这条
 * assistant 消息，否则请求以 400 被拒。
 */
// #region exercise
function handBack(_message: AssistantMessage): { reasoning_content?: string } {
  // TODO(lab-10): 这条消息如果带着思考，返回要加进它那条 assistant 消息的字段；没有就什么都不加。
  // 现在思考被丢掉了：第一次请求没问题，第二次请求被思考模式的模型以 400 拒绝。
  return {};
}
// #endregion exercise

/**
 * 把一次补全变成循环的响应：只有文本、没有工具调用时是 `finish`，文本作为 summary；否则每个工具调用
 * 按顺序变成一个 `tool_call` 动作，循环运行并回答完所有调用之后才再次询问。没有 id 的调用（Ollama）
 * 用步数和它的位置生成一个。模型写下的思考（`reasoning_content`）随回复一起交给循环。
 */
export function fromChatCompletion(completion: ChatCompletion, step: number): ModelResponse {
  const message = completion.choices[0]?.message;
  const usage = {
    ...(completion.usage == null
      ? {}
      : {
          usage: {
            inputTokens: completion.usage.prompt_tokens,
            outputTokens: completion.usage.completion_tokens,
          },
        }),
    // 思考是回复的一部分：循环把它和这次回复一起记下，下一次请求时交还（见 handBack）。
    ...(message?.reasoning_content == null
      ? {}
      : { reasoning: { text: message.reasoning_content } }),
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
