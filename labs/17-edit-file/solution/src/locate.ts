import type { LocateOutcome } from "@coding-agent/tools";

/**
 * `edit_file` 的唯一性检查：精确文本 `needle` 在 `text` 中出现的位置，前提是恰好出现一次。逐字节比
 * 较：不去空白、不忽略大小写、不做模糊匹配。一处都没有时是 `not_found_text`；出现不止一次时是
 * `not_unique`，并给出每个起点所在的行（从 1 开始），重叠的起点也算（在 `"aaa"` 里 `"aa"` 有两个起
 * 点：替换哪一个都是猜）。
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
    // 一行在 "\n" 处结束，不管前面有没有 "\r"。
    const lines = starts.map((at) => text.slice(0, at).split("\n").length);
    return { ok: false, reason: "not_unique", lines };
  }
  return { ok: true, index: first };
  // #endregion exercise
}
