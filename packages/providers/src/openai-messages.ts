import type { Message, ModelResponse, ToolDescription } from "@coding-agent/agent-core";
import { toTurns } from "./conversation.ts";
import { chatHandBack, readChatReasoning } from "./openai-reasoning.ts";
import type { ChatCompletion, ChatMessage, ChatTool } from "./openai-wire.ts";
import { readToolArguments } from "./tool-arguments.ts";

/**
 * The run's history as Chat Completions messages: the task as `user`; a reply's
 * text and tool calls as one `assistant` message with `tool_calls`; each result as
 * a `tool` message with the `tool_call_id` of its call, in the order of the calls,
 * right after them (the API rejects a `tool` message without that preceding call).
 */
export function toChatMessages(
  messages: readonly Message[],
  system?: string,
  /** The model the request goes to (see `chatHandBack`); undefined counts every part. */
  origin?: string,
): ChatMessage[] {
  const out: ChatMessage[] = system === undefined ? [] : [{ role: "system", content: system }];
  for (const turn of toTurns(messages)) {
    switch (turn.kind) {
      case "user":
        out.push({ role: "user", content: turn.text });
        break;
      case "assistant": {
        // A reply's reasoning goes back on its own message, as its vendor requires.
        const back = chatHandBack(turn.reasoning, origin);
        const text = back.content ?? turn.text;
        if (turn.calls.length === 0) {
          out.push({ role: "assistant", content: text, ...back.message });
          break;
        }
        out.push({
          role: "assistant",
          content: text === "" ? null : text,
          ...back.message,
          tool_calls: turn.calls.map((call, index) => ({
            id: call.callId,
            type: "function",
            function: { name: call.tool, arguments: JSON.stringify(call.input) },
            ...back.calls[index],
          })),
        });
        break;
      }
      case "results":
        for (const result of turn.results) {
          out.push({ role: "tool", tool_call_id: result.callId, content: result.content });
        }
        break;
      default: {
        const unreachable: never = turn;
        throw new TypeError(`unhandled turn ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return out;
}

/** The registered tools as Chat Completions `tools` (each input as JSON Schema `parameters`). */
export function toChatTools(tools: readonly ToolDescription[]): ChatTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}

/** Cached input tokens when the API reported some (the cost prices them apart). */
function cachedOf(tokens: number | null | undefined) {
  return typeof tokens === "number" && tokens > 0 ? { cachedInputTokens: tokens } : {};
}

/** Thinking tokens when the API reported some (already inside the output tokens). */
function reasoningOf(tokens: number | null | undefined) {
  return typeof tokens === "number" && tokens > 0 ? { reasoningTokens: tokens } : {};
}

/**
 * The usage as the runtime counts it. `completion_tokens` includes the reasoning tokens on
 * OpenAI's own API and DeepSeek's; a server whose `total_tokens` is larger than prompt plus
 * completion left them out, and the output is then the rest of the total, so a cost prices
 * every token the model produced.
 */
function usageOf(usage: NonNullable<ChatCompletion["usage"]>) {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const total = usage.total_tokens ?? 0;
  const outputTokens = Math.max(usage.completion_tokens, total - usage.prompt_tokens);
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens,
    ...cachedOf(usage.prompt_tokens_details?.cached_tokens),
    ...reasoningOf(Math.min(reasoning, outputTokens)),
  };
}

/**
 * A completion as the loop's response: text and no tool call is `finish` with the
 * text as summary; tool calls become `tool_call` actions in order (after the text,
 * if any, as a `message`), all answered before the next request. A call without an
 * id gets a stable one made from the step and its position, and the result is sent
 * back under that id. Arguments that cannot be read become `inputError`, so the
 * call is answered `invalid_input` and the model can correct it.
 */
export function fromChatCompletion(
  completion: ChatCompletion,
  step: number,
  /** Who answers (wire, endpoint, model): stamped on what the reply asks to get back. */
  origin = "openai",
): ModelResponse {
  const choice = completion.choices[0];
  const message = choice?.message;
  const read = readChatReasoning(message, origin);
  const extras = {
    ...(completion.usage == null ? {} : { usage: usageOf(completion.usage) }),
    ...(read.reasoning === undefined ? {} : { reasoning: read.reasoning }),
  };
  const text = read.text;
  const calls = message?.tool_calls ?? [];
  if (calls.length === 0) {
    return { action: { type: "finish", summary: text || (message?.refusal ?? "") }, ...extras };
  }
  const actions: unknown[] = text === "" ? [] : [{ type: "message", content: text }];
  calls.forEach((call, index) => {
    const args = readToolArguments(call.function.arguments);
    actions.push({
      type: "tool_call",
      tool: call.function.name,
      callId: call.id || `call_${step}_${index + 1}`,
      input: args.ok ? args.input : {},
      ...(args.ok ? {} : { inputError: args.message }),
    });
  });
  return { actions, ...extras };
}
