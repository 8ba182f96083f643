import type { StopKind, TaskResult } from "@coding-agent/eval";

/**
 * 没有完成的任务为什么停下：capability（Agent 做不到）、safety（被策略拦下）或 harness
 * （评测本身没有给出结论）；运行以 completed 结束时返回 undefined，不管评分器怎么判。
 */
export function stopKindOf(result: Pick<TaskResult, "status" | "code">): StopKind | undefined {
  // #region exercise
  // 参考答案：先排除完成的运行，再按“谁让它停下”分：安全策略、Agent 自己、评测框架。
  if (result.status === "completed") return undefined;
  // 被拦住不是能力不够：权限被拒绝的运行，状态是 blocked，或者停止代码是 permission_denied。
  if (result.status === "blocked" || result.code === "permission_denied") return "safety";
  if (result.status === "failed" || result.status === "budget_exceeded") return "capability";
  // 剩下的是 error（超时、崩溃）和 cancelled：评测框架没有拿到 Agent 的结论。
  return "harness";
  // #endregion exercise
}

/** 通过的任务占整个任务集的比例（分母是全部任务；空任务集为 0）。 */
export function passRateOf(results: readonly Pick<TaskResult, "passed" | "status">[]): number {
  // #region exercise
  // 参考答案：分母是任务集里的全部任务：超时和崩溃的任务也是没有通过的任务。
  if (results.length === 0) return 0;
  return results.filter((result) => result.passed).length / results.length;
  // #endregion exercise
}
