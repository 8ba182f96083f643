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
  // TODO(lab-17): 只有恰好出现一次才给出位置：
  //   - 一处也没有：{ ok: false, reason: "not_found_text" }；
  //   - 不止一处：{ ok: false, reason: "not_unique", lines }，lines 是每一处开头所在的行（从 1 数），
  //     重叠的也算（"aaa" 里 "aa" 出现两次）；一行以 "\n" 结束，前面有没有 "\r" 都一样；
  //   - 恰好一处：{ ok: true, index }。
  //   现在的写法只取第一处：文件里有两处相同的文本时，改了哪一处全凭运气。
  const at = text.indexOf(needle);
  if (at === -1) return { ok: false, reason: "not_found_text" };
  return { ok: true, index: at };
  // #endregion exercise
}
