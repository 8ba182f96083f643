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
  const results: Settled<T>[] = [];
  const settle = (index: number, result: Settled<T>) => {
    results[index] = result;
  };
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      const task = tasks[index] as ChildTask<T>;
      if (signal.aborted) {
        settle(index, { ok: false, error: signal.reason });
        continue;
      }
      const result = await Promise.resolve()
        .then(() => task(signal))
        .then(
          (value): Settled<T> => ({ ok: true, value }),
          (error): Settled<T> => ({ ok: false, error }),
        );
      settle(index, result);
    }
  };
  const workers = Math.min(options.limit, tasks.length);
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
  // #endregion exercise
}
