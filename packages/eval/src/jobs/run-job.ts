import path from "node:path";
import { type HarnessOutcome, type OnTaskFinished, runTrials } from "../harness.ts";
import { type RedisAddress, runTrialsOnQueue } from "../queue.ts";
import type { AgentRunner, TaskResult } from "../run-task.ts";
import { readTrajectory, type TrajectoryOf, type TrajectoryRead } from "../trajectory-read.ts";
import { type EvalTrial, trialLabel } from "../trial.ts";
import { type JobFolder, keptTrialDir, writeTrial } from "./job-folder.ts";
import { writeTrialTrajectory } from "./trial-trajectory.ts";

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
    /** A trial recorded without its trajectory file, and why (Chinese, one line). */
    readonly onWarning?: (message: string) => void;
  },
): Promise<HarnessOutcome> {
  const { spec } = job;
  const keptOf = (trial: EvalTrial) =>
    spec.keepWorkspaces ? keptTrialDir(trial.task.id, trial.trial) : undefined;
  const trajectoryFileOf = async (
    trial: EvalTrial,
    result: TaskResult,
    shipped: TrajectoryRead | undefined,
  ): Promise<string | undefined> => {
    // A trial without a run (a timeout, a crash before the run began) has no trajectory.
    if (result.runId === undefined) return undefined;
    const local = options.queue === undefined ? options.trajectoryOf : undefined;
    const read =
      shipped ?? (local === undefined ? undefined : await readTrajectory(local, result.runId));
    if (read === undefined) return undefined;
    const written = await writeTrialTrajectory(job, {
      taskId: trial.task.id,
      trial: trial.trial,
      read,
    });
    if (written.ok) return written.path;
    const label = trialLabel(trial.task.id, trial.trial, spec.trials);
    options.onWarning?.(`${label} 的 ATIF 轨迹没有写出：${written.message}`);
    return undefined;
  };
  const record = async (trial: EvalTrial, result: TaskResult, shipped?: TrajectoryRead) => {
    const kept = keptOf(trial);
    const trajectory = await trajectoryFileOf(trial, result, shipped);
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
