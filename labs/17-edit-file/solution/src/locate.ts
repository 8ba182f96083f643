import type { LocateOutcome } from "@coding-agent/tools";

/**
 * The uniqueness check of `edit_file`: where the exact text `needle` occurs in `text`,
 * if it occurs exactly once. Byte for byte: no trimming, no case folding, no fuzzy
 * match. `not_found_text` when it occurs nowhere; `not_unique` with the 1-based line
 * of every start when it occurs more than once, overlapping starts included (in
 * `"aaa"`, `"aa"` starts twice: replacing either would be a guess).
 */
export function locateOnce(text: string, needle: string): LocateOutcome {
  // #region exercise
  const starts: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    starts.push(at);
  }
  const [first] = starts;
  if (first === undefined) return { ok: false, reason: "not_found_text" };
  if (starts.length > 1) {
    // A line ends at "\n", whether "\r" comes before it or not.
    const lines = starts.map((at) => text.slice(0, at).split("\n").length);
    return { ok: false, reason: "not_unique", lines };
  }
  return { ok: true, index: first };
  // #endregion exercise
}
