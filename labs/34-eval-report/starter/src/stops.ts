import type { StopKind, TaskResult } from "@coding-agent/eval";

/**
 * Why a task that did not complete stopped: capability (the agent could not do it), safety (a
 * policy stopped it) or harness (the eval itself gave no verdict); undefined for a run that
 * completed, whatever its graders say.
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

/** The share of tasks that passed, over every task of the suite (0 for an empty suite). */
export function passRateOf(results: readonly Pick<TaskResult, "passed" | "status">[]): number {
  // #region exercise
  // TODO(lab-34): 现在总是 0。返回通过的任务占任务集的比例（0 到 1 之间）；任务集为空时是 0。
  //   分母是哪些任务？超时、崩溃的任务算不算？
  void results;
  return 0;
  // #endregion exercise
}
