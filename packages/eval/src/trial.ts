import type { EvalTask } from "./task-file.ts";

/** One run of one task: `--trials k` makes k of them per task, numbered from 1. */
export interface EvalTrial {
  readonly task: EvalTask;
  readonly trial: number;
}

/** Every trial of a suite: tasks in suite order, each task's trials 1..k together. */
export function trialsOf(tasks: readonly EvalTask[], trials: number): EvalTrial[] {
  return tasks.flatMap((task) =>
    Array.from({ length: trials }, (_, index) => ({ task, trial: index + 1 })),
  );
}

/** How a trial is named in progress lines and reports: the task id alone when k = 1. */
export function trialLabel(id: string, trial: number, trials: number): string {
  return trials === 1 ? id : `${id} #${trial}`;
}
