import type { StopKind, TaskResult } from "@coding-agent/eval";

/**
 * 没有完成的任务为什么停下：capability（Agent 做不到）、safety（被策略拦下）或 harness
 * （评测本身没有给出结论）；运行以 completed 结束时返回 undefined，不管评分器怎么判。
 */
export function stopKindOf(result: Pick<TaskResult, "status" | "code">): StopKind | undefined {
  // #region exercise
  // TODO(lab-34): 现在没有一次停止被归类：报告的“停止原因”三个数都是 0。
  //   按“是谁让它停下的”归类：安全策略（safety）、Agent 自己（capability）、评测框架没拿到
  //   结论（harness）；完成的运行没有停止原因。status 和 code 各说明了什么，见 README 的原理拆解。
  //   约束：一次被拒绝的权限不能算成“能力不够”，不管它以什么 status 结束。
  void result;
  return undefined;
  // #endregion exercise
}

/** 通过的任务占整个任务集的比例（分母是全部任务；空任务集为 0）。 */
export function passRateOf(results: readonly Pick<TaskResult, "passed" | "status">[]): number {
  // #region exercise
  // TODO(lab-34): 现在总是 0。返回通过的任务占任务集的比例（0 到 1 之间）；任务集为空时是 0。
  //   分母是哪些任务？超时、崩溃的任务算不算？
  void results;
  return 0;
  // #endregion exercise
}
