import type { StopKind, TaskResult } from "@coding-agent/eval";

/**
 * 没有完成的任务为什么停下：capability（Agent 做不到）、safety（被策略拦下）或 harness
 * （评测本身没有给出结论）；运行以 completed 结束时返回 undefined，不管评分器怎么判。
 */
export function stopKindOf(result: Pick<TaskResult, "status" | "code">): StopKind | undefined {
  // #region exercise
  // TODO(lab-34): 现在没有一次停止被归类：报告的“停止原因”三个数都是 0。按 status 和 code 分：
  //   - 完成的运行（completed）：没有停止原因，返回 undefined；
  //   - 安全策略让它停下（blocked，或者 code 是 permission_denied）：safety；
  //   - Agent 自己没做到（failed、budget_exceeded，finish_rejected 也在其中）：capability；
  //   - 评测框架没有拿到结论（error 的 timeout、crash，还有 cancelled）：harness。
  //   想一想：判断的先后顺序有没有关系？
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
