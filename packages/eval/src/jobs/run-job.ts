import path from "node:path";
import { type HarnessOutcome, type OnTaskFinished, runTrials } from "../harness.ts";
import { type RedisAddress, runTrialsOnQueue } from "../queue.ts";
import type { AgentRunner } from "../run-task.ts";
import type { EvalTrial } from "../trial.ts";
import { type JobFolder, keptTrialDir, writeTrial } from "./job-folder.ts";

/**
 * Runs some of a job's trials (all of them for a new job, those without a result for a
 * resume), here or through the queue, and writes each one's result file as it finishes.
 * Results come back in the order of `trials`.
 */
export function runJobTrials(
  job: JobFolder,
  trials: readonly EvalTrial[],
  options: {
    readonly runner: AgentRunner;
    readonly concurrency: number;
    readonly signal: AbortSignal;
    readonly queue?: RedisAddress;
    readonly onTaskFinished?: OnTaskFinished;
  },
): Promise<HarnessOutcome> {
  const { spec } = job;
  const keptOf = (trial: EvalTrial) =>
    spec.keepWorkspaces ? keptTrialDir(trial.task.id, trial.trial) : undefined;
  const record = async (trial: EvalTrial, result: Parameters<typeof writeTrial>[1]["result"]) => {
    const kept = keptOf(trial);
    await writeTrial(job, {
      taskId: trial.task.id,
      trial: trial.trial,
      result,
      ...(kept === undefined ? {} : { workspace: kept }),
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
