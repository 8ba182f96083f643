import type {
  Message,
  ModelResponse,
  ReplyReasoning,
  ToolDescription,
} from "@coding-agent/agent-core";
import { z } from "zod";
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
export function toAnthropicMessages(
  messages: readonly Message[],
  /** The endpoint the request goes to (see `thinkingBlocks`); undefined counts every block. */
  origin?: string,
): AnthropicRequestMessage[] {
  const out: AnthropicRequestMessage[] = [];
  for (const turn of toTurns(messages)) {
    switch (turn.kind) {
      case "user":
        out.push({ role: "user", content: turn.text });
        break;
      case "assistant": {
        const blocks: AnthropicBlock[] = thinkingBlocks(turn.reasoning, origin);
        if (turn.text !== "") blocks.push({ type: "text", text: turn.text });
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

/**
 * The `handBack` of a reply read from this wire: its thinking and redacted_thinking blocks,
 * in order, exactly as the API sent them. Checked when read back (a log may be edited).
 */
const AnthropicHandBackSchema = z.object({
  wire: z.literal("anthropic"),
  blocks: z.array(
    z.union([
      z.looseObject({ type: z.literal("thinking"), thinking: z.string() }),
      z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }),
    ]),
  ),
});

/**
 * The thinking blocks a turn gives back, first in its assistant message, unchanged: with
 * thinking on, the API rejects a tool-use turn whose thinking is missing or altered (its
 * signature is checked). Only to the endpoint that wrote them (`origin`): Claude's
 * signatures are Anthropic's, and another vendor's Anthropic-format endpoint cannot check
 * them. Older turns' blocks are sent too; the API drops them from the context itself.
 */
function thinkingBlocks(
  reasoning: ReplyReasoning | undefined,
  origin: string | undefined,
): AnthropicBlock[] {
  if (reasoning === undefined) return [];
  if (origin !== undefined && reasoning.origin !== origin) return [];
  const parsed = AnthropicHandBackSchema.safeParse(reasoning.handBack);
  return parsed.success ? (parsed.data.blocks as AnthropicBlock[]) : [];
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
export function fromAnthropicMessage(
  message: AnthropicMessage,
  /** Who answers (wire and endpoint): stamped on the thinking blocks the reply carries. */
  origin = "anthropic",
): ModelResponse {
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
  const thinking: Record<string, unknown>[] = [];
  const thoughts: string[] = [];
  for (const block of message.content) {
    if (block.type === "text" && "text" in block) texts.push(block.text);
    if (block.type === "thinking" || block.type === "redacted_thinking") {
      // The whole block, fields the adapter does not know included: it goes back unchanged.
      thinking.push(JSON.parse(JSON.stringify(block)) as Record<string, unknown>);
      if ("thinking" in block && typeof block.thinking === "string") thoughts.push(block.thinking);
    }
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
  const reasoning =
    thinking.length === 0
      ? {}
      : {
          reasoning: {
            ...(thoughts.length === 0 ? {} : { text: thoughts.join("\n\n") }),
            handBack: { wire: "anthropic", blocks: thinking } as never,
            origin,
          },
        };
  if (calls.length === 0) {
    return { action: { type: "finish", summary: text }, usage, ...reasoning };
  }
  const actions = text === "" ? calls : [{ type: "message", content: text }, ...calls];
  return { actions, usage, ...reasoning };
}
