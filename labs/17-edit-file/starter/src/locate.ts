import type { LocateOutcome } from "@coding-agent/tools";

/**
 * `edit_file` 的唯一性检查：精确文本 `needle` 在 `text` 中出现的位置，前提是恰好出现一次。逐字节比
 * 较：不去空白、不忽略大小写、不做模糊匹配。一处都没有时是 `not_found_text`；出现不止一次时是
 * `not_unique`，并给出每个起点所在的行（从 1 开始），重叠的起点也算（在 `"aaa"` 里 `"aa"` 有两个起
 * 点：替换哪一个都是猜）。
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
