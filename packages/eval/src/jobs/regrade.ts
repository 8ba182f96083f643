import { stat } from "node:fs/promises";
import path from "node:path";
import { changedPaths, snapshotFixture, snapshotWorkspace } from "../fixture.ts";
import { runPool } from "../harness.ts";
import {
  DEFAULT_TASK_TIMEOUT_MS,
  gradeWorkspace,
  type TaskResult,
  workspaceIn,
} from "../run-task.ts";
import type { EvalTask } from "../task-file.ts";
import { type JobFolder, writeTrial } from "./job-folder.ts";
import type { TrialFile } from "./job-spec.ts";

/**
 * How one trial's regrade ended: graded again; kept as it was because its workspace is gone;
 * or kept as it was because grading it threw (the file could not be written, say).
 */
export type RegradeOutcome =
  | { readonly kind: "regraded"; readonly result: TaskResult }
  | { readonly kind: "no_workspace"; readonly result: TaskResult }
  | { readonly kind: "failed"; readonly result: TaskResult; readonly message: string };

/**
 * Runs the graders again on each finished trial's kept workspace, with the run's recorded
 * status and code: no agent and no model, so a changed grader (or a task's changed test
 * command, from `gradingTaskOf`) is judged on what the agent really left. Each new result
 * replaces its trial file atomically; a trial whose workspace is gone keeps its result.
 */
export function regradeTrials(
  job: JobFolder,
  trials: readonly TrialFile[],
  options: {
    readonly concurrency: number;
    readonly signal: AbortSignal;
    /** The task the graders read (test command, paths, expected status); the recorded one by default. */
    readonly gradingTaskOf?: (recorded: EvalTask) => EvalTask;
    readonly onTrialRegraded?: (outcome: RegradeOutcome, finished: number, total: number) => void;
  },
) {
  const tasks = new Map(job.spec.tasks.map((task) => [task.id, task]));
  return runPool<TrialFile, RegradeOutcome>(trials, {
    concurrency: options.concurrency,
    signal: options.signal,
    run: async (record) => {
      const recorded = tasks.get(record.taskId);
      const workspace =
        record.workspace === undefined
          ? undefined
          : workspaceIn(path.join(job.dir, record.workspace));
      const present =
        workspace !== undefined &&
        (await stat(workspace).then(
          (info) => info.isDirectory(),
          () => false,
        ));
      if (recorded === undefined || workspace === undefined || !present)
        return { kind: "no_workspace", result: record.result };
      const task = options.gradingTaskOf?.(recorded) ?? recorded;
      // The workspace is compared with the fixture the trial started from: the recorded one.
      const changed = changedPaths(
        snapshotFixture(recorded.files),
        await snapshotWorkspace(workspace),
      );
      const graders = await gradeWorkspace({
        task,
        workspace,
        changed,
        run: record.result,
        timeoutMs: task.timeoutMs ?? job.spec.timeoutMs ?? DEFAULT_TASK_TIMEOUT_MS,
        signal: options.signal,
      });
      const result: TaskResult = {
        ...record.result,
        passed: Object.values(graders).every((verdict) => verdict.pass),
        graders,
      };
      if (options.signal.aborted) return { kind: "regraded", result };
      await writeTrial(job, {
        taskId: record.taskId,
        trial: record.trial,
        finishedAt: record.finishedAt,
        result,
        ...(record.workspace === undefined ? {} : { workspace: record.workspace }),
        ...(record.trajectory === undefined ? {} : { trajectory: record.trajectory }),
        regradedAt: new Date().toISOString(),
      });
      // The row keeps the trial's own duration: the agent's run is what it measures.
      return { kind: "regraded", result };
    },
    crashed: (error, record) => ({
      kind: "failed",
      result: record.result,
      message: error instanceof Error ? error.message : String(error),
    }),
    ...(options.onTrialRegraded === undefined ? {} : { onFinished: options.onTrialRegraded }),
  });
}
