import path from "node:path";
import { type HarnessOutcome, type OnTaskFinished, runTrials } from "../harness.ts";
import { type RedisAddress, runTrialsOnQueue } from "../queue.ts";
import type { AgentRunner, TaskResult } from "../run-task.ts";
import {
  readTrajectory,
  runCutOf,
  type TrajectoryOf,
  type TrajectoryRead,
} from "../trajectory-read.ts";
import type { EvalTrial } from "../trial.ts";
import { type JobFolder, keptTrialDir, writeTrial } from "./job-folder.ts";
import { keepTrialTrajectory } from "./trial-trajectory.ts";

/**
 * Runs some of a job's trials (all of them for a new job, those without a result for a
 * resume), here or through the queue, and writes each one's files as it finishes: its run as
 * ATIF (when `trajectoryOf` is given), then its result. Results come back in the order of
 * `trials`.
 */
export function runJobTrials(
  job: JobFolder,
  trials: readonly EvalTrial[],
  options: {
    readonly runner: AgentRunner;
    readonly concurrency: number;
    readonly signal: AbortSignal;
    readonly queue?: RedisAddress;
    /** How a local trial's run is read as ATIF; a queued trial's comes from its worker. */
    readonly trajectoryOf?: TrajectoryOf;
    readonly onTaskFinished?: OnTaskFinished;
    /** A trial recorded without its trajectory file, and why (Chinese, one line per trial). */
    readonly onWarning?: (message: string) => void;
  },
): Promise<HarnessOutcome> {
  const { spec } = job;
  const keptOf = (trial: EvalTrial) =>
    spec.keepWorkspaces ? keptTrialDir(trial.task.id, trial.trial) : undefined;
  const readOf = async (result: TaskResult, shipped: TrajectoryRead | undefined) => {
    // A queued trial's run is read by its worker, on the machine where its records are.
    if (shipped !== undefined || options.queue !== undefined) return shipped;
    if (options.trajectoryOf === undefined || result.runId === undefined) return undefined;
    return readTrajectory(options.trajectoryOf, result.runId, runCutOf(result));
  };
  const record = async (trial: EvalTrial, result: TaskResult, shipped?: TrajectoryRead) => {
    const kept = keptOf(trial);
    const trajectory =
      options.trajectoryOf === undefined && shipped === undefined
        ? undefined
        : await keepTrialTrajectory(job, {
            taskId: trial.task.id,
            trial: trial.trial,
            result,
            read: await readOf(result, shipped),
            onWarning: options.onWarning,
          });
    await writeTrial(job, {
      taskId: trial.task.id,
      trial: trial.trial,
      result,
      ...(kept === undefined ? {} : { workspace: kept }),
      ...(trajectory === undefined ? {} : { trajectory }),
    });
  };
  const timeout = spec.timeoutMs === undefined ? {} : { defaultTimeoutMs: spec.timeoutMs };
  if (options.queue !== undefined)
    return runTrialsOnQueue(trials, {
      address: options.queue,
      signal: options.signal,
      jobKey: spec.jobId,
      trialsPerTask: spec.trials,
      ...timeout,
      record,
      ...(options.onTaskFinished === undefined ? {} : { onTaskFinished: options.onTaskFinished }),
    });
  return runTrials(trials, {
    runner: options.runner,
    concurrency: options.concurrency,
    signal: options.signal,
    trialsPerTask: spec.trials,
    ...timeout,
    record,
    ...(options.onTaskFinished === undefined ? {} : { onTrialFinished: options.onTaskFinished }),
    keepDirOf: (trial) => {
      const kept = keptOf(trial);
      return kept === undefined ? undefined : path.join(job.dir, kept);
    },
  });
}
