import { z } from "zod";

/**
 * The OpenAI Chat Completions wire format (`POST <base>/chat/completions`), as
 * documented, limited to what the adapter sends and reads. Responses are parsed
 * loosely (`z.object`: servers add fields); what the adapter relies on is checked.
 */

/** A tool call as the API writes it. `id` and string `arguments` per spec; see below. */
export const ChatToolCallSchema = z.object({
  // Ollama and some other OpenAI-compatible servers leave the id out.
  id: z.string().nullish(),
  type: z.literal("function").optional(),
  function: z.object({
    name: z.string(),
    // A JSON text per spec; Ollama sends the object itself.
    arguments: z.unknown(),
  }),
  /** Gemini's thought signature of this call (`{ google: { thought_signature } }`). */
  extra_content: z.json().nullish(),
});

/** The assistant message of a choice. */
export const ChatAssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string().nullish(),
  tool_calls: z.array(ChatToolCallSchema).nullish(),
  refusal: z.string().nullish(),
  /** The reasoning text (DeepSeek, Kimi, GLM, Qwen); `reasoning` on OpenRouter and vLLM. */
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  /** OpenRouter's reasoning blocks (some encrypted), to be passed back unmodified. */
  reasoning_details: z.array(z.json()).nullish(),
  /** Vendor extensions of the message (Gemini's thought signature on a text reply). */
  extra_content: z.json().nullish(),
});

/** A successful response of `POST /chat/completions`. */
export const ChatCompletionSchema = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        index: z.int().optional(),
        message: ChatAssistantMessageSchema,
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1, "choices 为空"),
  usage: z
    .object({
      prompt_tokens: z.int().min(0),
      completion_tokens: z.int().min(0),
      /** The part of `prompt_tokens` served from the prompt cache (priced apart). */
      prompt_tokens_details: z.object({ cached_tokens: z.int().min(0).nullish() }).nullish(),
      /** The part of the output spent thinking. */
      completion_tokens_details: z.object({ reasoning_tokens: z.int().min(0).nullish() }).nullish(),
      total_tokens: z.int().min(0).nullish(),
    })
    .nullish(),
});

/** A successful response of `POST /chat/completions`. */
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

/** A message the adapter sends. */
export type ChatMessage =
  | { readonly role: "system" | "user"; readonly content: string }
  | {
      readonly role: "assistant";
      readonly content: string | null;
      readonly tool_calls?: readonly {
        readonly id: string;
        readonly type: "function";
        readonly function: { readonly name: string; readonly arguments: string };
        /** Given back as the reply had it (Gemini's thought signature). */
        readonly extra_content?: unknown;
      }[];
      /** The reasoning the reply carried, given back (see `openai-reasoning.ts`). */
      readonly reasoning_content?: string;
      readonly reasoning?: string;
      readonly reasoning_details?: readonly unknown[];
      readonly extra_content?: unknown;
    }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

/** A tool as the API describes one to the model. */
export interface ChatTool {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: Readonly<Record<string, unknown>>;
  };
}

/** The request body the adapter sends. */
export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ChatTool[];
  readonly max_tokens?: number;
  /** Asks for the reply as server-sent events (`chat.completion.chunk`s, then `[DONE]`). */
  readonly stream?: boolean;
  /** With `include_usage`, the last chunk before `[DONE]` carries the usage. */
  readonly stream_options?: { readonly include_usage: boolean };
  /** A vendor's reasoning switch (`reasoning_effort`, `thinking`, …; see `presets.ts`). */
  readonly [vendorField: string]: unknown;
}
