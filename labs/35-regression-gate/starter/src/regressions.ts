import type { BaselineTask, TaskResult } from "@coding-agent/eval";

export type { BaselineTask };

/**
 * 这次运行相对基线的回归：基线里通过、这次失败的任务 id，按 `results` 的顺序（即任务集的顺序）。
 * `baseline` 是 `coding-agent eval --json`（或 `--update-baseline`）写下的结果文件里的 `tasks`。
 */
export function findRegressions(
  baseline: readonly BaselineTask[],
  results: readonly TaskResult[],
): string[] {
  // #region exercise
  // TODO(lab-35): 现在一个回归也不报：门永远是开的。改成按 results 的顺序找出回归：
  //   - 回归 = 这次没通过（看 passed，它是评分器的结论），而基线里同一个 id 的任务通过了；
  //   - 用 id 在基线里找，不要按位置：两次运行的任务顺序可以不同；
  //   - 基线里没有的任务（新加的）、基线里就没通过的任务，都不是回归；
  //   - 超时、崩溃的任务（status 为 "error"）没有通过。
  void baseline;
  void results;
  return [];
  // #endregion exercise
}
