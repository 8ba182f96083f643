import { z } from "zod";

/**
 * The Anthropic Messages API wire format (`POST <base>/v1/messages`), as documented,
 * limited to what the adapter sends and reads.
 */

/** The `anthropic-version` header the adapter speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";

const TextBlockSchema = z.object({ type: z.literal("text"), text: z.string() });

const ToolUseBlockSchema = z.object({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string(),
  input: z.unknown(),
});

/**
 * The model's thinking (extended thinking): its text and the signature the API checks when
 * the block comes back. A `redacted_thinking` block holds encrypted thinking in `data`.
 * Both go back unchanged at the start of their assistant message (see `anthropic-messages.ts`).
 */
const ThinkingBlockSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
});
const RedactedThinkingBlockSchema = z.looseObject({
  type: z.literal("redacted_thinking"),
  data: z.string(),
});

const KNOWN_BLOCKS: readonly string[] = ["text", "tool_use", "thinking", "redacted_thinking"];

/** Blocks the adapter does not act on (server tools…) are recognised and left out. */
const OtherBlockSchema = z.object({
  type: z.string().refine((type) => !KNOWN_BLOCKS.includes(type)),
});

/** A successful response of `POST /v1/messages`. */
export const AnthropicMessageSchema = z.object({
  id: z.string().optional(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  content: z.array(
    z.union([
      TextBlockSchema,
      ToolUseBlockSchema,
      ThinkingBlockSchema,
      RedactedThinkingBlockSchema,
      OtherBlockSchema,
    ]),
  ),
  stop_reason: z.string().nullish(),
  usage: z.object({
    input_tokens: z.int().min(0),
    output_tokens: z.int().min(0),
    /** Prompt-cache reads and writes: counted apart from `input_tokens` by this API. */
    cache_read_input_tokens: z.int().min(0).nullish(),
    cache_creation_input_tokens: z.int().min(0).nullish(),
  }),
});

/** A successful response of `POST /v1/messages`. */
export type AnthropicMessage = z.infer<typeof AnthropicMessageSchema>;

/** A content block the adapter sends. */
export type AnthropicBlock =
  | { readonly type: "text"; readonly text: string }
  /** A thinking or redacted_thinking block of an earlier reply, given back unchanged. */
  | { readonly type: "thinking" | "redacted_thinking"; readonly [field: string]: unknown }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
    }
  | {
      readonly type: "tool_result";
      readonly tool_use_id: string;
      readonly content: string;
      readonly is_error?: boolean;
    };

/** A message the adapter sends: roles are only `user` and `assistant`. */
export interface AnthropicRequestMessage {
  readonly role: "user" | "assistant";
  readonly content: string | readonly AnthropicBlock[];
}

/** A tool as the API describes one to the model. */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
}

/** The request body the adapter sends (`max_tokens` is required by the API). */
export interface AnthropicRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: string;
  readonly messages: readonly AnthropicRequestMessage[];
  readonly tools?: readonly AnthropicTool[];
  /** Asks for the reply as server-sent events. */
  readonly stream?: boolean;
  /** Extended thinking: on with a token budget, or off. Left out: the endpoint's default. */
  readonly thinking?:
    | { readonly type: "enabled"; readonly budget_tokens: number }
    | { readonly type: "disabled" };
}
