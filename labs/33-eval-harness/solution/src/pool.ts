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
  const results: R[] = new Array(items.length);
  let next = 0;
  let finished = 0;
  // 参考答案：固定数目的“车道”，每条车道做完一个就取下一个——不是一批一批地等。
  const lane = async () => {
    // 取下一个之前先看有没有取消：取消之后一个新任务也不开始。
    while (next < items.length && !options.signal.aborted) {
      const index = next;
      next += 1;
      const item = items[index] as T;
      let result: R;
      try {
        result = await options.run(item, index);
      } catch (error) {
        // 一个任务抛出异常，只是这个任务崩溃了：其余的任务照样跑完。
        result = options.crashed(error, item, index);
      }
      // 按下标放回去：结果的顺序是任务集的顺序，不是完成的顺序。
      results[index] = result;
      if (options.signal.aborted) return;
      finished += 1;
      options.onFinished?.(result, finished, items.length);
    }
  };
  const lanes = Math.max(1, Math.min(options.concurrency, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return options.signal.aborted ? { kind: "cancelled" } : { kind: "done", results };
  // #endregion exercise
};
