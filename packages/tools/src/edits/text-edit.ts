/**
 * The pure part of `edit_file`: find the exact text once and replace it, keeping the
 * file's line endings and final newline. No I/O here, so every rule is testable on
 * strings alone.
 */

/** Why a text cannot be edited: `old` is not in it, or it is there more than once (1-based lines). */
export type TextEditRefusal =
  | { readonly ok: false; readonly reason: "not_found_text" }
  | { readonly ok: false; readonly reason: "not_unique"; readonly lines: readonly number[] };

/** The outcome of replacing `old` in a text: the new text, or why not. */
export type TextEditOutcome =
  | { readonly ok: true; readonly text: string; readonly line: number }
  | TextEditRefusal;

/** Where the one occurrence of a needle starts, or why there is not exactly one. */
export type LocateOutcome = { readonly ok: true; readonly index: number } | TextEditRefusal;

/** Finds where the exact text `needle` occurs exactly once in `text`. */
export type LocateText = (text: string, needle: string) => LocateOutcome;

/**
 * Every index where `needle` starts in `haystack`, overlapping ones included: in
 * `"aaa"`, `"aa"` starts twice, and replacing either would be a guess.
 */
export function findAllOccurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  let from = 0;
  while (true) {
    const at = haystack.indexOf(needle, from);
    if (at === -1) return found;
    found.push(at);
    from = at + 1;
  }
}

/** The 1-based line on which `index` of `text` lies. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * The one index where `needle` starts in `text`; `not_found_text` when it is nowhere,
 * `not_unique` with the line of every start (overlapping ones included) otherwise.
 */
export function locateExactlyOnce(text: string, needle: string): LocateOutcome {
  const found = findAllOccurrences(text, needle);
  const [first] = found;
  if (first === undefined) return { ok: false, reason: "not_found_text" };
  if (found.length > 1)
    return { ok: false, reason: "not_unique", lines: found.map((at) => lineAt(text, at)) };
  return { ok: true, index: first };
}

/**
 * Replaces the one occurrence of `old` in `text` with `replacement`.
 *
 * Line endings: a file whose every line break is CRLF is edited as if it were LF
 * (the model usually sends `\n`) and written back with CRLF; a file with no CRLF
 * takes `old` and `replacement` with CRLF turned into LF; a file mixing both is
 * matched byte for byte, since converting it either way would change lines nobody
 * asked to change. A final newline the file had (or lacked) is kept. `locate` finds
 * the occurrence (lesson 17 passes the learner's).
 */
export function replaceExactlyOnce(
  text: string,
  old: string,
  replacement: string,
  locate: LocateText = locateExactlyOnce,
): TextEditOutcome {
  const style = lineEndingStyle(text);
  const toLf = (s: string) => s.replaceAll("\r\n", "\n");
  const body = style === "crlf" ? toLf(text) : text;
  const needle = style === "mixed" ? old : toLf(old);
  const insert = style === "mixed" ? replacement : toLf(replacement);

  const located = locate(body, needle);
  if (!located.ok) return located;
  const first = located.index;
  let edited = body.slice(0, first) + insert + body.slice(first + needle.length);
  // Only an edit reaching the end of the file can change its final newline.
  if (first + needle.length === body.length) edited = keepFinalNewline(body, insert, edited);
  return {
    ok: true,
    text: style === "crlf" ? edited.replaceAll("\n", "\r\n") : edited,
    line: lineAt(body, first),
  };
}

/** How a text breaks its lines. A text with no line break counts as `lf`. */
export function lineEndingStyle(text: string): "lf" | "crlf" | "mixed" {
  const crlf = text.split("\r\n").length - 1;
  if (crlf === 0) return "lf";
  const lf = text.split("\n").length - 1;
  return crlf === lf ? "crlf" : "mixed";
}

/**
 * `edited` (whose end is `insert`) with the final newline `before` had, or without
 * the one the insert added to a file that lacked it.
 */
function keepFinalNewline(before: string, insert: string, edited: string): string {
  const had = before.endsWith("\n");
  if (had && edited.length > 0 && !edited.endsWith("\n")) return `${edited}\n`;
  // A file without a final newline cannot end in blank lines either: the insert's
  // trailing line breaks go, what came before the edit stays.
  if (!had && insert.endsWith("\n"))
    return edited.slice(0, edited.length - insert.length) + insert.replace(/(\r?\n)+$/, "");
  return edited;
}
