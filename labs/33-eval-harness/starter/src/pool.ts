import type { Pool, PoolOptions, PoolOutcome } from "@coding-agent/eval";

/**
 * 同时最多运行 `options.concurrency` 个 `items`，按 items 原来的顺序交回每个结果；
 * `options.signal` 取消之后不再启动新的任务，没启动的报告为 cancelled。
 */
export const runPool: Pool = async <T, R>(
  items: readonly T[],
  options: PoolOptions<T, R>,
): Promise<PoolOutcome<R>> => {
  // #region exercise
  const results: R[] = [];
  // TODO(lab-33): 现在一次只跑一个，任务多了要等很久；取消了也照样一个个开始；一个任务
  //   抛出异常，整个评测就没有结果了。改成：
  //   - 同时最多跑 options.concurrency 个，一个做完马上开始下一个（不要一批一批地等）；
  //   - 结果按任务集的顺序放（第 i 个任务的结果在 results[i]），不是按完成的顺序；
  //   - options.signal 取消之后不再开始新任务，返回 { kind: "cancelled" }；
  //   - options.run 抛出异常时，用 options.crashed(error, item, index) 作为这个任务的结果。
  //   每完成一个（且没有取消），调用 options.onFinished(result, 已完成个数, 总数)。
  for (const [index, item] of items.entries()) {
    const result = await options.run(item, index);
    results.push(result);
    options.onFinished?.(result, results.length, items.length);
  }
  return { kind: "done", results };
  // #endregion exercise
};
