import type { Redactor } from "@coding-agent/agent-core";
import type { EventSourceMessage } from "eventsource-parser";
import { z } from "zod";
import type { ChatCompletion } from "./openai-wire.ts";
import { eventJson, malformedEvent } from "./sse.ts";

/**
 * One `chat.completion.chunk` of a streamed Chat Completion, as documented, loosely (servers
 * add fields): `choices[].delta` carries pieces of the text and of the tool calls (their
 * `arguments` in pieces, joined by the call's `index`); with `stream_options.include_usage`
 * the last chunk before `[DONE]` has no choices and the usage.
 */
export const ChatCompletionChunkSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.int().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.int().min(0),
                  id: z.string().nullish(),
                  function: z
                    .object({ name: z.string().nullish(), arguments: z.unknown() })
                    .nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .object({
      prompt_tokens: z.int().min(0),
      completion_tokens: z.int().min(0),
      prompt_tokens_details: z.object({ cached_tokens: z.int().min(0).nullish() }).nullish(),
    })
    .nullish(),
  /** A server that fails mid-stream may send its error object as a chunk. */
  error: z.unknown().optional(),
});

interface CallParts {
  id: string | undefined;
  name: string;
  /** Pieces of a JSON text; a server that sends the object itself (Ollama) sets `whole`. */
  pieces: string[];
  whole: unknown;
}

/** Assembles the chunks of one streamed Chat Completion into the completion they make. */
export interface ChatStreamAssembler {
  /** Reads one event; true at `[DONE]`. Throws a `ProviderError` for a malformed event. */
  onEvent(event: EventSourceMessage): boolean;
  /** The completion, as the non-streaming API would have answered it. */
  completion(): ChatCompletion;
}

/**
 * Reads the events of `POST /chat/completions` with `stream: true`. Text deltas go to
 * `onText` as they arrive (a display: the reply is used only once `[DONE]` has come).
 * Only the first choice is read (the adapter asks for one).
 */
export function createChatStreamAssembler(options: {
  readonly vendor: string;
  readonly redact: Redactor;
  readonly onText?: ((text: string) => void) | undefined;
}): ChatStreamAssembler {
  const { vendor, redact } = options;
  let id: string | undefined;
  let model: string | undefined;
  let sawChoice = false;
  const text: string[] = [];
  const refusal: string[] = [];
  let finishReason: string | undefined;
  let usage: ChatCompletion["usage"];
  const calls = new Map<number, CallParts>();
  return {
    onEvent(event) {
      if (event.data.trim() === "[DONE]") return true;
      const parsed = ChatCompletionChunkSchema.safeParse(eventJson(vendor, redact, event));
      if (!parsed.success) {
        throw malformedEvent(vendor, redact, event, "不是文档中的 chat.completion.chunk 结构");
      }
      const chunk = parsed.data;
      if (chunk.error !== undefined && chunk.error !== null) {
        throw malformedEvent(vendor, redact, event, "服务器在流中返回了错误");
      }
      id ??= chunk.id ?? undefined;
      model ??= chunk.model ?? undefined;
      if (chunk.usage != null) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue;
        sawChoice = true;
        if (choice.finish_reason != null) finishReason = choice.finish_reason;
        const delta = choice.delta;
        if (delta == null) continue;
        if (typeof delta.content === "string" && delta.content !== "") {
          text.push(delta.content);
          emit(options.onText, delta.content);
        }
        if (typeof delta.refusal === "string") refusal.push(delta.refusal);
        for (const part of delta.tool_calls ?? []) {
          const call = calls.get(part.index) ?? {
            id: undefined,
            name: "",
            pieces: [],
            whole: undefined,
          };
          calls.set(part.index, call);
          if (part.id != null && part.id !== "") call.id ??= part.id;
          const name = part.function?.name;
          // The name comes whole in the call's first delta; a server that repeats it is not doubled.
          if (typeof name === "string" && name !== "" && call.name !== name) call.name += name;
          const args = part.function?.arguments;
          if (typeof args === "string") call.pieces.push(args);
          else if (args !== undefined && args !== null) call.whole = args;
        }
      }
      return false;
    },
    completion() {
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({
          ...(call.id === undefined ? {} : { id: call.id }),
          type: "function" as const,
          function: {
            name: call.name,
            arguments: call.whole !== undefined ? call.whole : call.pieces.join(""),
          },
        }));
      const content = text.join("");
      return {
        ...(id === undefined ? {} : { id }),
        ...(model === undefined ? {} : { model }),
        // No choice at all is what the non-streaming parser rejects as "choices 为空".
        choices: sawChoice
          ? [
              {
                index: 0,
                message: {
                  role: "assistant",
                  content: content === "" ? null : content,
                  ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
                  ...(refusal.length === 0 ? {} : { refusal: refusal.join("") }),
                },
                finish_reason: finishReason ?? null,
              },
            ]
          : [],
        usage,
      };
    },
  };
}

/** Hands a text delta to the display; a display that throws does not break the reply. */
export function emit(onText: ((text: string) => void) | undefined, text: string): void {
  try {
    onText?.(text);
  } catch {
    // The text is shown for the user's sake only; the reply does not depend on it.
  }
}
