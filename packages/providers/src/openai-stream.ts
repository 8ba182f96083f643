import type { Redactor } from "@coding-agent/agent-core";
import type { EventSourceMessage } from "eventsource-parser";
import { z } from "zod";
import { createReasoningParts, createThinkSplitter } from "./openai-stream-reasoning.ts";
import type { ChatCompletion } from "./openai-wire.ts";
import { eventJson, malformedEvent } from "./sse.ts";

const ToolCallDeltaSchema = z.object({
  index: z.int().min(0),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.unknown() }).nullish(),
  /** Gemini's thought signature, on the call's first delta. */
  extra_content: z.json().nullish(),
});

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
            tool_calls: z.array(ToolCallDeltaSchema).nullish(),
            /** Pieces of the reasoning text (`reasoning` on OpenRouter and vLLM). */
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            /** Pieces of OpenRouter's reasoning blocks, joined by their `index`. */
            reasoning_details: z.array(z.json()).nullish(),
            extra_content: z.json().nullish(),
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
      completion_tokens_details: z.object({ reasoning_tokens: z.int().min(0).nullish() }).nullish(),
      total_tokens: z.int().min(0).nullish(),
    })
    .nullish(),
  /** A server that fails mid-stream may send its error object as a chunk. */
  error: z.unknown().optional(),
});

/** One tool call of a streamed reply, as its deltas have built it so far. */
export interface ToolCallParts {
  id: string | undefined;
  name: string;
  /** Pieces of a JSON text; a server that sends the object itself (Ollama) sets `whole`. */
  pieces: string[];
  whole: unknown;
}

/** One `choices[0].delta.tool_calls[]` entry of a chunk. */
export interface ToolCallDelta {
  readonly index: number;
  readonly id?: string | null | undefined;
  readonly function?:
    | { readonly name?: string | null | undefined; readonly arguments?: unknown }
    | null
    | undefined;
}

/** Adds one delta to the calls built so far (lesson 38 passes the learner's). */
export type AddToolCallDelta = (calls: Map<number, ToolCallParts>, delta: ToolCallDelta) => void;

/**
 * Adds one tool-call delta to `calls`, keyed by the delta's `index` (docs/contracts.md §7, lesson 38):
 * the deltas of parallel calls may interleave, and only `index` says which call a piece of
 * `arguments` belongs to. The first delta of a call brings its `id` and `name`; later ones
 * bring pieces of `arguments` (kept in arrival order, joined at the end). A name a server
 * repeats is not doubled; `arguments` that are a JSON object already (Ollama) are kept whole.
 */
export const addToolCallDelta: AddToolCallDelta = (calls, delta) => {
  const call = calls.get(delta.index) ?? { id: undefined, name: "", pieces: [], whole: undefined };
  calls.set(delta.index, call);
  if (delta.id != null && delta.id !== "") call.id ??= delta.id;
  const name = delta.function?.name;
  if (typeof name === "string" && name !== "" && call.name !== name) call.name += name;
  const args = delta.function?.arguments;
  if (typeof args === "string") call.pieces.push(args);
  else if (args !== undefined && args !== null) call.whole = args;
};

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
  /** Gets the reasoning as it streams in (a display, like `onText`). */
  readonly onReasoning?: ((text: string) => void) | undefined;
  /** How a tool-call delta is added; `addToolCallDelta` by default. */
  readonly addToolCallDelta?: AddToolCallDelta | undefined;
}): ChatStreamAssembler {
  const { vendor, redact } = options;
  const reasoning = createReasoningParts();
  // A leading `<think>` block of the content is shown as reasoning, not as text.
  const display = createThinkSplitter(
    (text) => emit(options.onText, text),
    (text) => emit(options.onReasoning, text),
  );
  let id: string | undefined;
  let model: string | undefined;
  let sawChoice = false;
  const text: string[] = [];
  const refusal: string[] = [];
  let finishReason: string | undefined;
  let usage: ChatCompletion["usage"];
  const calls = new Map<number, ToolCallParts>();
  const callExtras = new Map<number, unknown>();
  const addDelta = options.addToolCallDelta ?? addToolCallDelta;
  return {
    onEvent(event) {
      if (event.data.trim() === "[DONE]") {
        display(undefined);
        return true;
      }
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
          display(delta.content);
        }
        if (typeof delta.refusal === "string") refusal.push(delta.refusal);
        reasoning.add(delta, (piece) => emit(options.onReasoning, piece));
        for (const part of delta.tool_calls ?? []) {
          addDelta(calls, part);
          if (part.extra_content != null) callExtras.set(part.index, part.extra_content);
        }
      }
      return false;
    },
    completion() {
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]) => ({
          ...(call.id === undefined ? {} : { id: call.id }),
          type: "function" as const,
          function: {
            name: call.name,
            arguments: call.whole !== undefined ? call.whole : call.pieces.join(""),
          },
          ...(callExtras.has(index) ? { extra_content: callExtras.get(index) as never } : {}),
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
                  ...reasoning.fields(),
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
