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
