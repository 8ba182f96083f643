import { z } from "zod";
import { deepFreeze } from "./deep-freeze.ts";
import type { Redactor } from "./redact.ts";

/**
 * What a reasoning model thought before it replied. The runtime keeps it with the reply and
 * hands it back to the provider in every later request, because today's vendors require it:
 * a reply can carry state the client must return. Two parts, both optional:
 *
 * - `text`: the reasoning as readable text, for people (shown, traced, counted). The run
 *   redacts it like any other text.
 * - `handBack`: what the provider needs to send back, in a shape only that provider knows
 *   (a signature, an encrypted block, the field names its vendor used). The runtime never
 *   reads it and never changes it in memory; `origin` names who wrote it, so a provider can
 *   leave out what another model wrote.
 */
export const ReplyReasoningSchema = z.strictObject({
  text: z.string().optional(),
  handBack: z.json().optional(),
  origin: z.string().min(1).optional(),
});

/** What a reasoning model thought before a reply (see `ReplyReasoningSchema`). */
export type ReplyReasoning = z.infer<typeof ReplyReasoningSchema>;

/**
 * A reply's reasoning as the history keeps it: the text redacted like every other text the
 * run records; `handBack` exactly as the provider gave it (it goes back to the vendor, which
 * may check a signature over it; what reaches the disk is redacted there). Frozen, since the
 * history holds it by reference. Nothing to keep: undefined.
 */
export function keptReasoning(
  reasoning: ReplyReasoning | undefined,
  redact: Redactor,
): ReplyReasoning | undefined {
  if (reasoning === undefined) return undefined;
  if (reasoning.text === undefined && reasoning.handBack === undefined) return undefined;
  return deepFreeze({
    ...reasoning,
    ...(reasoning.text === undefined ? {} : { text: redact(reasoning.text) }),
  });
}
