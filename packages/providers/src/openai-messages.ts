import type { Message, ModelResponse, ToolDescription } from "@coding-agent/agent-core";
import { toTurns } from "./conversation.ts";
import type { ChatCompletion, ChatMessage, ChatTool } from "./openai-wire.ts";
import { readToolArguments } from "./tool-arguments.ts";

/**
 * The run's history as Chat Completions messages: the task as `user`; a reply's
 * text and tool calls as one `assistant` message with `tool_calls`; each result as
 * a `tool` message with the `tool_call_id` of its call, in the order of the calls,
 * right after them (the API rejects a `tool` message without that preceding call).
 */
export function toChatMessages(messages: readonly Message[], system?: string): ChatMessage[] {
  const out: ChatMessage[] = system === undefined ? [] : [{ role: "system", content: system }];
  for (const turn of toTurns(messages)) {
    switch (turn.kind) {
      case "user":
        out.push({ role: "user", content: turn.text });
        break;
      case "assistant":
        if (turn.calls.length === 0) {
          out.push({ role: "assistant", content: turn.text });
          break;
        }
        out.push({
          role: "assistant",
          content: turn.text === "" ? null : turn.text,
          tool_calls: turn.calls.map((call) => ({
            id: call.callId,
            type: "function",
            function: { name: call.tool, arguments: JSON.stringify(call.input) },
          })),
        });
        break;
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

/**
 * A completion as the loop's response: text and no tool call is `finish` with the
 * text as summary; tool calls become `tool_call` actions in order (after the text,
 * if any, as a `message`), all answered before the next request. A call without an
 * id gets a stable one made from the step and its position, and the result is sent
 * back under that id. Arguments that cannot be read become `inputError`, so the
 * call is answered `invalid_input` and the model can correct it.
 */
export function fromChatCompletion(completion: ChatCompletion, step: number): ModelResponse {
  const choice = completion.choices[0];
  const message = choice?.message;
  const usage =
    completion.usage == null
      ? {}
      : {
          usage: {
            inputTokens: completion.usage.prompt_tokens,
            outputTokens: completion.usage.completion_tokens,
            ...cachedOf(completion.usage.prompt_tokens_details?.cached_tokens),
          },
        };
  const text = message?.content ?? "";
  const calls = message?.tool_calls ?? [];
  if (calls.length === 0) {
    return { action: { type: "finish", summary: text || (message?.refusal ?? "") }, ...usage };
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
  return { actions, ...usage };
}
