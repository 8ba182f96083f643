import type { ReplyReasoning } from "@coding-agent/agent-core";
import { z } from "zod";

/**
 * Reasoning on the OpenAI Chat Completions wire, as the vendors that speak it document it.
 * One rule covers them all: whatever a reply carried that the vendor wants back is sent back
 * on the same assistant message (and the same tool call), in the field it came in, unchanged.
 *
 * - `reasoning_content` (DeepSeek, Kimi, GLM, Qwen): the reasoning text. DeepSeek: "for turns
 *   that do perform tool calls, the reasoning_content must be fully passed back to the API in
 *   all subsequent requests" (else 400); Kimi answers 400 "reasoning_content is missing in
 *   assistant tool call message"; GLM asks for it to be preserved.
 * - `reasoning` (OpenRouter, vLLM): the same text under another name.
 * - `reasoning_details` (OpenRouter): an array of blocks, some encrypted, "passed back
 *   unmodified".
 * - `extra_content` on a tool call (Gemini): `{ google: { thought_signature } }`, which must
 *   come back on that call (400 "Function call is missing a thought_signature").
 * - `<think>…</think>` at the start of `content` (MiniMax-M2): must stay in the history; it is
 *   shown apart as reasoning and the content goes back as the model wrote it.
 *
 * The text is not opaque and goes back to any model on this wire (a fallback model of the
 * same vendor needs it as much). The opaque parts — details, signatures — go back only to the
 * model that wrote them (`origin`), never to another vendor's model.
 */

const Json = z.json();

/** The `handBack` of a reply read from this wire. Checked when read back (a log may be edited). */
const ChatHandBackSchema = z.object({
  wire: z.literal("openai"),
  /** The field the text came in, and goes back in. */
  textField: z.enum(["reasoning_content", "reasoning"]).optional(),
  /**
   * The text as the model wrote it: the run redacts `ReplyReasoning.text`, but the vendor
   * wants its own words back unchanged (only the model that wrote them gets them).
   */
  text: z.string().optional(),
  /** OpenRouter's `reasoning_details`, unchanged. */
  details: z.array(Json).optional(),
  /** A message-level `extra_content` (Gemini), unchanged. */
  extra: Json.optional(),
  /** Each tool call's `extra_content`, in the order of the calls; null where none came. */
  calls: z.array(Json.nullable()).optional(),
  /** The content as the model wrote it, when a `<think>` block was taken out of the text. */
  content: z.string().optional(),
});

type ChatHandBack = z.infer<typeof ChatHandBackSchema>;

/** What an assistant message of a reply may carry besides text and tool calls. */
export interface ChatReasoningFields {
  readonly content?: string | null | undefined;
  readonly reasoning_content?: string | null | undefined;
  readonly reasoning?: string | null | undefined;
  readonly reasoning_details?: readonly unknown[] | null | undefined;
  readonly extra_content?: unknown;
  readonly tool_calls?: readonly { readonly extra_content?: unknown }[] | null | undefined;
}

/** A leading `<think>` block (MiniMax-M2 and other open models that inline their reasoning). */
const THINK_BLOCK = /^\s*<think>([\s\S]*?)<\/think>\s*/;

/**
 * Reads a reply's reasoning: its text (from `reasoning_content`, `reasoning`, the text of
 * `reasoning_details`, or a leading `<think>` block) and what must go back. Also gives the
 * visible text: the content without a leading `<think>` block. Undefined reasoning when the
 * reply carried none.
 */
export function readChatReasoning(
  message: ChatReasoningFields | undefined,
  origin: string,
): { readonly text: string; readonly reasoning?: ReplyReasoning } {
  const content = message?.content ?? "";
  const think = THINK_BLOCK.exec(content);
  const visible = think === null ? content : content.slice(think[0].length);
  if (message === undefined) return { text: visible };
  const textField =
    typeof message.reasoning_content === "string"
      ? ("reasoning_content" as const)
      : typeof message.reasoning === "string"
        ? ("reasoning" as const)
        : undefined;
  const details = message.reasoning_details ?? undefined;
  const calls = (message.tool_calls ?? []).map((call) => call.extra_content ?? null);
  const rawText = textField === undefined ? undefined : (message[textField] ?? undefined);
  const handBack: ChatHandBack = {
    wire: "openai",
    ...(textField === undefined || rawText === undefined ? {} : { textField, text: rawText }),
    ...(details === undefined || details.length === 0 ? {} : { details: details.map(toJson) }),
    ...(message.extra_content == null ? {} : { extra: toJson(message.extra_content) }),
    ...(calls.some((extra) => extra !== null) ? { calls: calls.map(toJson) } : {}),
    ...(think === null ? {} : { content }),
  };
  const text = rawText ?? detailsText(details) ?? think?.[1]?.trim();
  const keeps = Object.keys(handBack).length > 1;
  if (!keeps && (text === undefined || text === "")) return { text: visible };
  return {
    text: visible,
    reasoning: {
      ...(text === undefined || text === "" ? {} : { text }),
      ...(keeps ? { handBack } : {}),
      origin,
    },
  };
}

/** The readable text of OpenRouter's `reasoning_details` (its text and summary blocks). */
function detailsText(details: readonly unknown[] | undefined): string | undefined {
  const texts = (details ?? []).flatMap((detail) => {
    const block = detail as { text?: unknown; summary?: unknown } | null;
    if (typeof block?.text === "string") return [block.text];
    if (typeof block?.summary === "string") return [block.summary];
    return [];
  });
  return texts.length === 0 ? undefined : texts.join("");
}

/** A value as JSON (what a zod `z.json()` accepts): a round trip drops what JSON cannot hold. */
function toJson(value: unknown): z.infer<typeof Json> {
  return JSON.parse(JSON.stringify(value ?? null)) as z.infer<typeof Json>;
}

/** What goes back on an assistant message, and on each of its tool calls. */
export interface ChatHandBackFields {
  readonly message: Readonly<Record<string, unknown>>;
  /** Per call, in order: the fields to add to it (empty where none). */
  readonly calls: readonly Readonly<Record<string, unknown>>[];
  /** The content to send instead of the turn's text (a `<think>` block kept), if any. */
  readonly content?: string;
}

const NOTHING: ChatHandBackFields = { message: {}, calls: [] };

/**
 * The fields a turn's reasoning puts back on its assistant message. `origin` is the model
 * this request goes to: the opaque parts go back only to the model that wrote them; with
 * `origin` undefined (a token estimate) everything is counted.
 */
export function chatHandBack(
  reasoning: ReplyReasoning | undefined,
  origin: string | undefined,
): ChatHandBackFields {
  if (reasoning === undefined) return NOTHING;
  const parsed = ChatHandBackSchema.safeParse(reasoning.handBack);
  // Reasoning another wire wrote (or none that says where its text goes): nothing to send,
  // since a field this server never sent may be one it rejects.
  if (!parsed.success) return NOTHING;
  const handBack = parsed.data;
  const sameModel = origin === undefined || reasoning.origin === origin;
  const message: Record<string, unknown> = {};
  // The model's own words to the model that wrote them; the run's (redacted) text to another.
  const text = sameModel ? (handBack.text ?? reasoning.text) : reasoning.text;
  if (handBack.textField !== undefined && text !== undefined) message[handBack.textField] = text;
  if (sameModel && handBack.details !== undefined) message.reasoning_details = handBack.details;
  if (sameModel && handBack.extra !== undefined) message.extra_content = handBack.extra;
  const calls = (sameModel ? (handBack.calls ?? []) : []).map((extra) =>
    extra === null ? {} : { extra_content: extra },
  );
  return {
    message,
    calls,
    ...(handBack.content === undefined ? {} : { content: handBack.content }),
  };
}
