import { type AgentRunner, crashedTask, runTask, type TaskResult } from "./run-task.ts";
import type { EvalTask } from "./task-file.ts";
import type { TrajectoryRead } from "./trajectory-read.ts";
import type { EvalTrial } from "./trial.ts";

/** Tasks run side by side unless `--concurrency` says otherwise. */
export const DEFAULT_CONCURRENCY = 2;

/** Called once per finished task, in the order they finish. */
export type OnTaskFinished = (result: TaskResult, finished: number, total: number) => void;

/** The harness's outcome: every task's result in suite order, or cancelled (Ctrl-C). */
export type HarnessOutcome =
  | { readonly kind: "done"; readonly results: readonly TaskResult[] }
  | { readonly kind: "cancelled" };

/** What a pool gives back: every item's result in the order of the items, or cancelled. */
export type PoolOutcome<R> =
  | { readonly kind: "done"; readonly results: readonly R[] }
  | { readonly kind: "cancelled" };

/** How a pool is told what to run. */
export interface PoolOptions<T, R> {
  /** At most this many `run` calls are pending at once (at least one). */
  readonly concurrency: number;
  /** Once aborted, the pool starts no new item and reports cancelled. */
  readonly signal: AbortSignal;
  /** Runs one item; it resolves with that item's result (a failed task is a result, not a throw). */
  readonly run: (item: T, index: number) => Promise<R>;
  /** The result of an item whose `run` threw: one broken item must not end the whole run. */
  readonly crashed: (error: unknown, item: T, index: number) => R;
  /** Called once per finished item, in the order they finish, while no cancel came. */
  readonly onFinished?: (result: R, finished: number, total: number) => void;
}

/** The shape of `runPool`; `runTasks` takes another one (a lesson's) through its `pool` option. */
export type Pool = <T, R>(
  items: readonly T[],
  options: PoolOptions<T, R>,
) => Promise<PoolOutcome<R>>;

/**
 * Runs `items` at most `concurrency` at a time: a fixed number of lanes, each taking the next
 * item when its previous one finished. Results land at their item's index, so they come back
 * in the items' order whatever order they finish in.
 */
export const runPool: Pool = async <T, R>(
  items: readonly T[],
  options: PoolOptions<T, R>,
): Promise<PoolOutcome<R>> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  let finished = 0;
  const lane = async () => {
    // An item is taken only while no cancel came: a cancelled run starts nothing new.
    while (next < items.length && !options.signal.aborted) {
      const index = next;
      next += 1;
      const item = items[index] as T;
      let result: R;
      try {
        result = await options.run(item, index);
      } catch (error) {
        result = options.crashed(error, item, index);
      }
      results[index] = result;
      if (options.signal.aborted) return;
      finished += 1;
      options.onFinished?.(result, finished, items.length);
    }
  };
  const lanes = Math.max(1, Math.min(options.concurrency, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return options.signal.aborted ? { kind: "cancelled" } : { kind: "done", results };
};

/**
 * Runs `tasks` at most `concurrency` at a time, each in its own temporary workspace. A cancel
 * kills every running task's process group and waits for their workspaces to be removed.
 */
export async function runTasks(
  tasks: readonly EvalTask[],
  options: {
    readonly runner: AgentRunner;
    readonly concurrency: number;
    readonly signal: AbortSignal;
    readonly defaultTimeoutMs?: number;
    readonly onTaskFinished?: OnTaskFinished;
    /** The pool that schedules the tasks; `runPool` unless a lesson brings its own. */
    readonly pool?: Pool;
  },
): Promise<HarnessOutcome> {
  const pool = options.pool ?? runPool;
  return pool(tasks, {
    concurrency: options.concurrency,
    signal: options.signal,
    run: (task) =>
      runTask(task, {
        runner: options.runner,
        signal: options.signal,
        ...(options.defaultTimeoutMs === undefined
          ? {}
          : { defaultTimeoutMs: options.defaultTimeoutMs }),
      }),
    // runTask turns what it can into a result; what escapes it (no temporary folder) is a crash.
    crashed: (error, task) =>
      crashedTask(task.id, error instanceof Error ? error.message : String(error), 0),
    ...(options.onTaskFinished === undefined ? {} : { onFinished: options.onTaskFinished }),
  });
}

/** A trial's result as a report row: its trial number only when the task runs more than once. */
export function withTrial(result: TaskResult, trial: number, trials: number): TaskResult {
  if (trials === 1) return result;
  const { id, trial: _previous, ...rest } = result;
  return { id, trial, ...rest };
}

/**
 * How a trial's run is recorded once graded; a throw makes the trial a crash. A trial run by
 * a queue worker comes with its run's trajectory, read on the worker's machine.
 */
export type RecordTrial = (
  trial: EvalTrial,
  result: TaskResult,
  trajectory?: TrajectoryRead,
) => Promise<void>;

/**
 * Runs `trials` (task × trial number) at most `concurrency` at a time, each in its own
 * workspace (a temporary one, or `keepDirOf`'s), and `record`s each result before it counts
 * as finished: a progress line is only printed for a trial whose result is on disk. A
 * trial cut short by a cancel is not recorded (it has no result; a resume runs it).
 */
export function runTrials(
  trials: readonly EvalTrial[],
  options: {
    readonly runner: AgentRunner;
    readonly concurrency: number;
    readonly signal: AbortSignal;
    /** k of `--trials k`: above 1 each row carries its trial number. */
    readonly trialsPerTask: number;
    readonly defaultTimeoutMs?: number;
    readonly keepDirOf?: (trial: EvalTrial) => string | undefined;
    readonly record?: RecordTrial;
    readonly onTrialFinished?: OnTaskFinished;
  },
): Promise<PoolOutcome<TaskResult>> {
  return runPool(trials, {
    concurrency: options.concurrency,
    signal: options.signal,
    run: async (item) => {
      const keepDir = options.keepDirOf?.(item);
      const ran = await runTask(item.task, {
        runner: options.runner,
        signal: options.signal,
        ...(options.defaultTimeoutMs === undefined
          ? {}
          : { defaultTimeoutMs: options.defaultTimeoutMs }),
        ...(keepDir === undefined ? {} : { keepDir }),
      });
      const result = withTrial(ran, item.trial, options.trialsPerTask);
      if (!options.signal.aborted) await options.record?.(item, result);
      return result;
    },
    crashed: (error, item) =>
      withTrial(
        crashedTask(item.task.id, error instanceof Error ? error.message : String(error), 0),
        item.trial,
        options.trialsPerTask,
      ),
    ...(options.onTrialFinished === undefined ? {} : { onFinished: options.onTrialFinished }),
  });
}

/**
 * The progress line of a finished task (stderr): `[3/12] ✓ fix-slugify 4.2s`; a trial of
 * `--trials k` (k > 1) is named with its number, `[3/12] ✓ fix-slugify #2 4.2s`.
 */
export function progressLine(result: TaskResult, finished: number, total: number): string {
  const mark = result.passed ? "✓" : "✗";
  const seconds = (result.durationMs / 1000).toFixed(1);
  const label = result.trial === undefined ? result.id : `${result.id} #${result.trial}`;
  // Exactly the line of docs/contracts.md §7; why a task failed is the report's business.
  return `[${finished}/${total}] ${mark} ${label} ${seconds}s`;
}
