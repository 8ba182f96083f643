import type { Message, ModelResponse, ToolDescription } from "@coding-agent/agent-core";
import type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRequestMessage,
  AnthropicTool,
} from "./anthropic-wire.ts";
import { toTurns } from "./conversation.ts";
import { readToolArguments } from "./tool-arguments.ts";

/**
 * The run's history as Messages API messages: the task as `user`; a reply's text
 * and tool calls as one `assistant` message of `text` and `tool_use` blocks; the
 * results as the next `user` message of `tool_result` blocks, one per `tool_use`
 * id, in order (the API rejects a result whose id has no `tool_use` just before).
 */
export function toAnthropicMessages(messages: readonly Message[]): AnthropicRequestMessage[] {
  const out: AnthropicRequestMessage[] = [];
  for (const turn of toTurns(messages)) {
    switch (turn.kind) {
      case "user":
        out.push({ role: "user", content: turn.text });
        break;
      case "assistant": {
        const blocks: AnthropicBlock[] =
          turn.text === "" ? [] : [{ type: "text", text: turn.text }];
        for (const call of turn.calls) {
          blocks.push({ type: "tool_use", id: call.callId, name: call.tool, input: call.input });
        }
        out.push({ role: "assistant", content: blocks.length === 0 ? turn.text : blocks });
        break;
      }
      case "results":
        out.push({
          role: "user",
          content: turn.results.map((result) => ({
            type: "tool_result",
            tool_use_id: result.callId,
            content: result.content,
            ...(result.ok ? {} : { is_error: true }),
          })),
        });
        break;
      default: {
        const unreachable: never = turn;
        throw new TypeError(`unhandled turn ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return out;
}

/** The registered tools as Messages API `tools` (each input as JSON Schema `input_schema`). */
export function toAnthropicTools(tools: readonly ToolDescription[]): AnthropicTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
}

/**
 * A message as the loop's response: text blocks and no `tool_use` is `finish` with
 * the text as summary; `tool_use` blocks become `tool_call` actions in order, each
 * keeping its id (after the text, if any, as a `message`). An input that is not an
 * object becomes `inputError`, so the call is answered `invalid_input`.
 */
export function fromAnthropicMessage(message: AnthropicMessage): ModelResponse {
  // The API counts cache reads and writes apart from input_tokens; the runtime counts every
  // token the model read as input, the cache reads as its cached part (priced apart).
  const read = message.usage.cache_read_input_tokens ?? 0;
  const written = message.usage.cache_creation_input_tokens ?? 0;
  const usage = {
    inputTokens: message.usage.input_tokens + read + written,
    outputTokens: message.usage.output_tokens,
    ...(read > 0 ? { cachedInputTokens: read } : {}),
  };
  const texts: string[] = [];
  const calls: unknown[] = [];
  for (const block of message.content) {
    if (block.type === "text" && "text" in block) texts.push(block.text);
    if (block.type === "tool_use" && "id" in block) {
      const args = readToolArguments(block.input);
      calls.push({
        type: "tool_call",
        tool: block.name,
        callId: block.id,
        input: args.ok ? args.input : {},
        ...(args.ok ? {} : { inputError: args.message }),
      });
    }
  }
  const text = texts.join("\n\n");
  if (calls.length === 0) return { action: { type: "finish", summary: text }, usage };
  return { actions: text === "" ? calls : [{ type: "message", content: text }, ...calls], usage };
}
