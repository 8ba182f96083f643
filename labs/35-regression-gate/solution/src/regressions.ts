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
  // 参考答案：按 id 找基线里的任务——任务集增删过、改过顺序，两次的第 i 个就不是同一个任务。
  const passedBefore = new Set(baseline.filter((task) => task.passed).map((task) => task.id));
  const regressions: string[] = [];
  for (const result of results) {
    // passed 是评分器的结论：超时、崩溃（status 为 "error"）和测试没过的 "completed" 都是 false。
    if (!result.passed && passedBefore.has(result.id)) regressions.push(result.id);
  }
  return regressions;
  // #endregion exercise
}
