import type { Redactor } from "@coding-agent/agent-core";
import type { EventSourceMessage } from "eventsource-parser";
import { z } from "zod";
import { ProviderError } from "./errors.ts";
import { excerptOf } from "./http.ts";
import { emit } from "./openai-stream.ts";
import { eventJson, malformedEvent } from "./sse.ts";

const UsageSchema = z.object({
  input_tokens: z.int().min(0).nullish(),
  output_tokens: z.int().min(0).nullish(),
  cache_read_input_tokens: z.int().min(0).nullish(),
  cache_creation_input_tokens: z.int().min(0).nullish(),
});

/**
 * The events of a streamed Messages API reply, as documented: `message_start` (the message
 * with its input usage), per content block `content_block_start` / `content_block_delta`
 * (`text_delta`, `input_json_delta` with a piece of the tool input's JSON, `thinking_delta`
 * and `signature_delta` of a thinking block) /
 * `content_block_stop`, `message_delta` (stop reason, cumulative usage), `message_stop`;
 * `ping` and `error` may come at any time. Loose: the API adds fields and event types.
 */
const StreamEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message_start"),
    message: z.object({
      id: z.string().nullish(),
      model: z.string().nullish(),
      usage: UsageSchema,
    }),
  }),
  z.object({
    type: z.literal("content_block_start"),
    index: z.int().min(0),
    content_block: z.looseObject({ type: z.string() }),
  }),
  z.object({
    type: z.literal("content_block_delta"),
    index: z.int().min(0),
    delta: z.looseObject({ type: z.string() }),
  }),
  z.object({ type: z.literal("content_block_stop"), index: z.int().min(0) }),
  z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullish() }).nullish(),
    usage: UsageSchema.nullish(),
  }),
  z.object({ type: z.literal("message_stop") }),
  z.object({ type: z.literal("ping") }),
  z.object({
    type: z.literal("error"),
    error: z.object({ type: z.string(), message: z.string().optional() }),
  }),
]);

/** The HTTP status an `error` event stands for, as the API's error types map to statuses. */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** A content block being streamed: its start, its text, the pieces of its input's JSON. */
interface BlockParts {
  readonly start: Record<string, unknown>;
  /** Pieces of a text block's text, or of a thinking block's thinking. */
  readonly text: string[];
  readonly json: string[];
  /** Pieces of a thinking block's signature (`signature_delta`). */
  readonly signature: string[];
}

/** Assembles the events of one streamed reply into the message they make. */
export interface MessageStreamAssembler {
  /** Reads one event; true at `message_stop`. Throws a `ProviderError` for a bad event. */
  onEvent(event: EventSourceMessage): boolean;
  /** The message, as the non-streaming API would have answered it (checked by its schema). */
  message(): unknown;
}

/**
 * Reads the events of `POST /v1/messages` with `stream: true`. Text deltas go to `onText`
 * as they arrive (a display: the reply is used only once `message_stop` has come). An
 * `error` event is a `ProviderError` with the status its type stands for (so an
 * `overloaded_error` is retried like a 529, an `invalid_request_error` is not).
 */
export function createMessageStreamAssembler(options: {
  readonly vendor: string;
  readonly redact: Redactor;
  readonly onText?: ((text: string) => void) | undefined;
  /** Gets the thinking as it streams in (a display, like `onText`). */
  readonly onReasoning?: ((text: string) => void) | undefined;
}): MessageStreamAssembler {
  const { vendor, redact } = options;
  let started: { id?: string | null; model?: string | null } | undefined;
  let stopReason: string | null = null;
  const usage: Record<string, number> = {};
  const blocks = new Map<number, BlockParts>();
  const addUsage = (part: z.infer<typeof UsageSchema> | null | undefined) => {
    for (const [key, value] of Object.entries(part ?? {})) {
      if (typeof value === "number") usage[key] = value;
    }
  };
  return {
    onEvent(event) {
      const json = eventJson(vendor, redact, event);
      const type = (json as { type?: unknown } | null)?.type;
      const known = StreamEventSchema.options.some((option) => option.shape.type.value === type);
      // Event types the adapter does not know (the API may add some) are passed over.
      if (typeof type === "string" && !known) return false;
      const parsed = StreamEventSchema.safeParse(json);
      if (!parsed.success) throw malformedEvent(vendor, redact, event, "不是文档中的流事件结构");
      const data = parsed.data;
      switch (data.type) {
        case "message_start":
          started = data.message;
          addUsage(data.message.usage);
          return false;
        case "content_block_start":
          blocks.set(data.index, {
            start: { ...data.content_block },
            text: [],
            json: [],
            signature: [],
          });
          return false;
        case "content_block_delta": {
          const block = blocks.get(data.index);
          if (block === undefined) {
            throw malformedEvent(
              vendor,
              redact,
              event,
              `内容块 ${data.index} 没有 content_block_start`,
            );
          }
          const { delta } = data;
          if (delta.type === "text_delta" && typeof delta.text === "string") {
            block.text.push(delta.text);
            emit(options.onText, delta.text);
          } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
            block.json.push(delta.partial_json);
          } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
            block.text.push(delta.thinking);
            emit(options.onReasoning, delta.thinking);
          } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
            block.signature.push(delta.signature);
          }
          return false;
        }
        case "message_delta":
          stopReason = data.delta?.stop_reason ?? stopReason;
          addUsage(data.usage);
          return false;
        case "message_stop":
          return true;
        case "error": {
          const status = ERROR_STATUS[data.error.type] ?? 500;
          const excerpt = excerptOf(event.data, redact);
          throw new ProviderError(`${vendor} 在流中返回错误（${data.error.type}）：${excerpt}`, {
            status,
            excerpt,
          });
        }
        default:
          return false;
      }
    },
    message() {
      const content = [...blocks.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, block]) => assembleBlock(block));
      return {
        ...(started?.id == null ? {} : { id: started.id }),
        type: "message",
        role: "assistant",
        ...(started?.model == null ? {} : { model: started.model }),
        content,
        stop_reason: stopReason,
        // No message_start: no usage, which the message schema then reports.
        ...(started === undefined ? {} : { usage }),
      };
    },
  };
}

/**
 * A block as the non-streaming API writes it: a text block with its text joined; a
 * `tool_use` block with its input parsed from the joined JSON pieces (none: the input of
 * its start, `{}`); JSON that does not parse stays text, so the call is answered
 * `invalid_input` as an unreadable input is.
 */
function assembleBlock(block: BlockParts): Record<string, unknown> {
  if (block.start.type === "text") return { ...block.start, text: block.text.join("") };
  if (block.start.type === "thinking") {
    // The start holds empty `thinking` and `signature`; the deltas bring both.
    const signature = block.signature.join("");
    return {
      ...block.start,
      thinking: `${typeof block.start.thinking === "string" ? block.start.thinking : ""}${block.text.join("")}`,
      ...(signature === "" ? {} : { signature }),
    };
  }
  if (block.start.type !== "tool_use" || block.json.length === 0) return block.start;
  const text = block.json.join("");
  if (text.trim() === "") return block.start;
  try {
    return { ...block.start, input: JSON.parse(text) };
  } catch {
    return { ...block.start, input: text };
  }
}
