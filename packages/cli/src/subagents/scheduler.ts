/**
 * Bounded concurrency for subagents (lesson 39). No I/O.
 */

/** One child's work: it should stop when `signal` fires. */
export type ChildTask<T> = (signal: AbortSignal) => Promise<T>;

/** How one task ended: its value, or what it threw (a task never started: the signal's reason). */
export type Settled<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

export interface RunAllOptions {
  /** Tasks running at once, an integer ≥ 1. */
  readonly limit: number;
  /** The parent's cancel: every running task gets it, and no task starts once it fired. */
  readonly signal: AbortSignal;
}

/**
 * Runs `tasks` with at most `limit` of them at once, starting them in call order, and
 * resolves to one result per task in call order — not in the order they finish. Each task
 * gets `options.signal`; once it has fired no further task starts (each of those settles
 * `{ ok: false }` with the signal's reason). A task that throws or rejects is a result
 * `{ ok: false, error }`: `runAll` itself never rejects for a task.
 */
export async function runAll<T>(
  tasks: readonly ChildTask<T>[],
  options: RunAllOptions,
): Promise<Settled<T>[]> {
  if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
    throw new RangeError(`limit must be an integer ≥ 1, got ${String(options.limit)}`);
  }
  const { signal } = options;
  const results: Settled<T>[] = [];
  const settle = (index: number, result: Settled<T>) => {
    results[index] = result;
  };
  let next = 0;
  // Each worker takes the next task in call order until none is left.
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
}
