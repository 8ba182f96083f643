import { z } from "zod";

/**
 * The OpenAI Chat Completions wire format (`POST <base>/chat/completions`), only
 * the parts this lesson sends and reads.
 */

/** One tool call inside an assistant message: `arguments` is JSON text, not an object. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A message the adapter sends. */
export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** A successful response, as documented (servers add fields; they are ignored). */
export const ChatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                // Ollama and some other servers leave the id out.
                id: z.string().nullish(),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.int(), completion_tokens: z.int() }).nullish(),
});

/** A successful response. */
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;
