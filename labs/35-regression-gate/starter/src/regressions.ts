import type { BaselineTask, TaskResult } from "@coding-agent/eval";

export type { BaselineTask };

/**
 * The regressions of a run against a baseline: the ids of the tasks that passed in the baseline
 * and fail now, in the order of `results` (the suite's order). `baseline` is the `tasks` of a
 * results file that `coding-agent eval --json` (or `--update-baseline`) wrote.
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
