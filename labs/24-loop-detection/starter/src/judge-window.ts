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
  // TODO(lab-24): 现在什么都不判断，模型原地打转也不会被停下。改成：
  //   - 先给窗口里每一项定性：之前有没有一模一样的一次（工具、输入、观察、工作区版本都相同）；
  //     有，并且两次之间的每一次也都是这样的重复，这一项就“没有进展”；
  //   - 只有最后一项没有进展时才可能停下：最后 2、3、4 次和它们前面的 2、3、4 次完全一样
  //     （而且不是同一个调用自己重复），就是循环，原因里用 labelOf 按顺序写出这一轮；
  //   - 否则，窗口里第 MAX_NO_PROGRESS 次没有进展时停下，原因里点名这些调用。
  //   轮询（状态在变）、翻页（输入在变）、改完再测（版本在变）都必须放行。
  void window;
  void MAX_NO_PROGRESS;
  void CYCLE_PERIODS;
  return { stop: false };
  // #endregion exercise
}

/** 原因里怎样称呼一次调用：工具名，加上输入的开头。 */
export function labelOf(entry: LoopWindowEntry): string {
  const shown = entry.input.length > 60 ? `${entry.input.slice(0, 60)}…` : entry.input;
  return `${entry.tool} ${shown}`;
}
