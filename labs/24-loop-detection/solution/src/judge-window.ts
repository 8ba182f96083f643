import type { LoopVerdict, LoopWindowEntry } from "@coding-agent/agent-core";

/** 窗口里第几次“没有进展”的调用让运行停下。 */
const MAX_NO_PROGRESS = 3;

/** 要找的循环有多长：一轮 2 到 4 次工具调用。 */
const CYCLE_PERIODS = [2, 3, 4] as const;

/**
 * 判断一个窗口（最近的若干次工具调用，最早的在前）是不是已经陷入循环；
 * 每来一次工具调用，就用以它结尾的窗口问一次。每一项是一次调用：工具名 `tool`、
 * 规范化的输入 `input`、它带回的观察 `observation`、调用之后的工作区版本 `version`。
 * 继续就返回 `{ stop: false }`；停下就返回 `{ stop: true, reason }`，原因里点名重复的调用。
 */
export function judgeLoopWindow(window: readonly LoopWindowEntry[]): LoopVerdict {
  // #region exercise
  // 同一个调用、同样的观察、同一个工作区版本：四样都相同，才是“又来了一遍”。
  const same = (a: LoopWindowEntry | undefined, b: LoopWindowEntry) =>
    a !== undefined &&
    a.tool === b.tool &&
    a.input === b.input &&
    a.observation === b.observation &&
    a.version === b.version;
  const repeat: boolean[] = [];
  const noProgress: boolean[] = [];
  for (const [index, entry] of window.entries()) {
    let twin = index - 1;
    while (twin >= 0 && !same(window[twin], entry)) twin -= 1;
    repeat.push(twin >= 0);
    // 两次之间但凡有一次带回了新东西（轮询时变了的状态），这次重复就不算停滞。
    noProgress.push(twin >= 0 && repeat.slice(twin + 1, index).every(Boolean));
  }
  if (noProgress.at(-1) !== true) return { stop: false };
  for (const period of CYCLE_PERIODS) {
    if (window.length < 2 * period) break;
    const cycle = window.slice(-period);
    const before = window.slice(-2 * period, -period);
    if (!cycle.every((entry, index) => same(before[index], entry))) continue;
    // A-A-A-A 是同一个调用在重复，不是循环：交给下面的计数。
    const first = cycle[0] as LoopWindowEntry;
    if (cycle.every((entry) => entry.tool === first.tool && entry.input === first.input)) continue;
    const names = cycle.map(labelOf).join(" → ");
    return { stop: true, reason: `检测到循环：${names} 已连续出现 2 轮，观察没有任何变化` };
  }
  const stalled = window.filter((_, index) => noProgress[index]);
  if (stalled.length < MAX_NO_PROGRESS) return { stop: false };
  const names = [...new Set(stalled.map(labelOf))].join("、");
  return {
    stop: true,
    reason: `检测到循环：最近 ${window.length} 次工具调用中有 ${stalled.length} 次没有带回新的观察：${names}`,
  };
  // #endregion exercise
}

/** 原因里怎样称呼一次调用：工具名，加上输入的开头。 */
export function labelOf(entry: LoopWindowEntry): string {
  const shown = entry.input.length > 60 ? `${entry.input.slice(0, 60)}…` : entry.input;
  return `${entry.tool} ${shown}`;
}
