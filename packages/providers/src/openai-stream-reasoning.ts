/**
 * The reasoning parts of a streamed Chat Completion: pieces of `reasoning_content` (or
 * `reasoning`) joined in arrival order, OpenRouter's `reasoning_details` pieces joined per
 * block `index`, a message-level `extra_content` kept. What `completion()` puts on the
 * assembled message is what a plain (non-streamed) reply would have carried.
 */
export interface ReasoningParts {
  /** Adds one chunk's delta; hands each readable piece to `show` as it arrives. */
  add(delta: ReasoningDelta, show: (text: string) => void): void;
  /** The fields of the assembled message (none when the stream carried no reasoning). */
  fields(): Record<string, never>;
}

/** The reasoning fields of one `choices[0].delta`. */
export interface ReasoningDelta {
  readonly reasoning_content?: string | null | undefined;
  readonly reasoning?: string | null | undefined;
  readonly reasoning_details?: readonly unknown[] | null | undefined;
  readonly extra_content?: unknown;
}

/** Fields of a `reasoning_details` block that arrive in pieces; the rest arrive whole. */
const PIECED = ["text", "summary", "data"] as const;

export function createReasoningParts(): ReasoningParts {
  const content: string[] = [];
  const plain: string[] = [];
  let sawContent = false;
  let sawPlain = false;
  const details: Record<string, unknown>[] = [];
  const byIndex = new Map<number, Record<string, unknown>>();
  let extra: unknown;
  return {
    add(delta, show) {
      if (typeof delta.reasoning_content === "string") {
        sawContent = true;
        content.push(delta.reasoning_content);
        if (delta.reasoning_content !== "") show(delta.reasoning_content);
      }
      // OpenRouter sends the same text as `reasoning` and inside `reasoning_details`.
      const shown = typeof delta.reasoning_content === "string";
      if (typeof delta.reasoning === "string") {
        sawPlain = true;
        plain.push(delta.reasoning);
        if (!shown && delta.reasoning !== "") show(delta.reasoning);
      }
      for (const piece of delta.reasoning_details ?? []) {
        if (piece === null || typeof piece !== "object") continue;
        const block = piece as Record<string, unknown>;
        const text = typeof block.text === "string" ? block.text : block.summary;
        const alreadyShown = shown || typeof delta.reasoning === "string";
        if (!alreadyShown && typeof text === "string" && text !== "") show(text);
        const index = typeof block.index === "number" ? block.index : undefined;
        const known = index === undefined ? undefined : byIndex.get(index);
        if (known === undefined) {
          const fresh = { ...block };
          details.push(fresh);
          if (index !== undefined) byIndex.set(index, fresh);
          continue;
        }
        for (const [key, value] of Object.entries(block)) {
          const joins = (PIECED as readonly string[]).includes(key);
          if (joins && typeof value === "string" && typeof known[key] === "string") {
            known[key] = `${known[key] as string}${value}`;
          } else if (value !== null && value !== undefined) {
            known[key] = value;
          }
        }
      }
      if (delta.extra_content != null) extra = delta.extra_content;
    },
    fields() {
      return {
        ...(sawContent ? { reasoning_content: content.join("") } : {}),
        ...(sawPlain ? { reasoning: plain.join("") } : {}),
        ...(details.length === 0 ? {} : { reasoning_details: details }),
        ...(extra === undefined ? {} : { extra_content: extra }),
      } as Record<string, never>;
    },
  };
}

const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * A display filter for models that write their reasoning inline (`<think>…</think>` at the
 * start of the content, as MiniMax-M2 does): the block goes to `reasoning`, the rest to
 * `text`. The reply itself is not changed (the history keeps the content as written); only
 * what a person watches is split. Call with `undefined` at the stream's end to show what is
 * still held back (a reply shorter than `<think>`).
 */
export function createThinkSplitter(
  text: (piece: string) => void,
  reasoning: (piece: string) => void,
): (piece: string | undefined) => void {
  // "gap": the block has ended; the whitespace between it and the text is not shown.
  let state: "start" | "think" | "gap" | "text" = "start";
  let held = "";
  return (piece) => {
    if (piece === undefined) {
      if (held !== "" && state !== "gap") (state === "think" ? reasoning : text)(held);
      held = "";
      return;
    }
    if (state === "gap") {
      const rest = piece.trimStart();
      if (rest === "") return;
      state = "text";
      text(rest);
      return;
    }
    if (state === "text") {
      text(piece);
      return;
    }
    held += piece;
    if (state === "start") {
      const trimmed = held.trimStart();
      if (trimmed.length < OPEN.length && OPEN.startsWith(trimmed)) return;
      if (!trimmed.startsWith(OPEN)) {
        state = "text";
        text(held);
        held = "";
        return;
      }
      state = "think";
      held = trimmed.slice(OPEN.length);
    }
    const end = held.indexOf(CLOSE);
    if (end >= 0) {
      if (end > 0) reasoning(held.slice(0, end));
      const rest = held.slice(end + CLOSE.length).trimStart();
      state = rest === "" ? "gap" : "text";
      held = "";
      if (rest !== "") text(rest);
      return;
    }
    // Keep back what could be the start of `</think>`; show the rest as it comes.
    const keep = Math.min(held.length, CLOSE.length - 1);
    const shown = held.slice(0, held.length - keep);
    if (shown !== "") reasoning(shown);
    held = held.slice(held.length - keep);
  };
}
