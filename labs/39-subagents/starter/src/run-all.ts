import type { ChildTask, RunAllOptions, Settled } from "@coding-agent/cli";

/**
 * 一批子 Agent 的调度（docs/contracts.md §7）：同时最多运行 `options.limit` 个 `tasks`，按调用顺序开始；
 * 按调用顺序交回每个任务的结果（第 i 个任务的结果在第 i 位），而不是按完成的顺序。
 * 每个任务都拿到 `options.signal`：父运行取消时，正在运行的每个子 Agent 都收到它，之后不再开始新任务
 * （没开始的任务的结果是 `{ ok: false, error: signal.reason }`）。任务抛出或 reject 时，
 * 它的结果是 `{ ok: false, error }`：runAll 本身不会因为一个任务而 reject。
 */
export async function runAll<T>(
  tasks: readonly ChildTask<T>[],
  options: RunAllOptions,
): Promise<Settled<T>[]> {
  if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
    throw new RangeError(`limit 必须是 ≥ 1 的整数，收到 ${String(options.limit)}`);
  }
  const { signal } = options;
  // #region exercise
  // TODO(lab-39): 现在所有任务同时开始，不管 options.limit；父运行取消了子 Agent 也不知道；结果按
  //   完成的顺序放；一个任务抛错，整批都 reject。
  //   目标：同时最多 options.limit 个，空出位置马上开始下一个，结果按调用顺序返回。
  //   约束：父运行的取消要传到每个任务，取消之后不再开始新任务；一个任务失败（同步抛错也算）
  //   只是它自己的结果，其余任务照常进行。
  const results: Settled<T>[] = [];
  void signal;
  await Promise.all(
    tasks.map(async (task) => {
      const value = await task(new AbortController().signal);
      results.push({ ok: true, value });
    }),
  );
  return results;
  // #endregion exercise
}
