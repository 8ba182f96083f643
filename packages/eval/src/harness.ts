import { type AgentRunner, runTask, type TaskResult } from "./run-task.ts";
import type { EvalTask } from "./task-file.ts";

/** Tasks run side by side unless `--concurrency` says otherwise. */
export const DEFAULT_CONCURRENCY = 2;

/** Called once per finished task, in the order they finish. */
export type OnTaskFinished = (result: TaskResult, finished: number, total: number) => void;

/** The harness's outcome: every task's result in suite order, or cancelled (Ctrl-C). */
export type HarnessOutcome =
  | { readonly kind: "done"; readonly results: readonly TaskResult[] }
  | { readonly kind: "cancelled" };

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
  },
): Promise<HarnessOutcome> {
  const results: TaskResult[] = new Array(tasks.length);
  let next = 0;
  let finished = 0;
  const lane = async () => {
    // A task is taken only while no cancel came: a cancelled run starts nothing new.
    while (next < tasks.length && !options.signal.aborted) {
      const index = next;
      next += 1;
      const task = tasks[index] as EvalTask;
      const result = await runTask(task, {
        runner: options.runner,
        signal: options.signal,
        ...(options.defaultTimeoutMs === undefined
          ? {}
          : { defaultTimeoutMs: options.defaultTimeoutMs }),
      });
      results[index] = result;
      if (options.signal.aborted) return;
      finished += 1;
      options.onTaskFinished?.(result, finished, tasks.length);
    }
  };
  const lanes = Math.max(1, Math.min(options.concurrency, tasks.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return options.signal.aborted ? { kind: "cancelled" } : { kind: "done", results };
}

/** The progress line of a finished task (stderr): `[3/12] ✓ fix-slugify 4.2s`. */
export function progressLine(result: TaskResult, finished: number, total: number): string {
  const mark = result.passed ? "✓" : "✗";
  const seconds = (result.durationMs / 1000).toFixed(1);
  // Exactly the line of design §7; why a task failed is the report's business.
  return `[${finished}/${total}] ${mark} ${result.id} ${seconds}s`;
}
