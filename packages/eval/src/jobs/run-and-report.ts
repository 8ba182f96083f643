import type { EvalInvocation } from "../eval-dependencies.ts";
import { EVAL_EXIT_CODES } from "../eval-exit-codes.ts";
import { progressLine } from "../harness.ts";
import { deliverReport, type EvalIo } from "../report-output.ts";
import type { TaskResult } from "../run-task.ts";
import { type EvalTrial, trialsOf } from "../trial.ts";
import type { GateBaseline } from "./command-checks.ts";
import { type JobFolder, type JobTrials, trialKey } from "./job-folder.ts";
import { runJobTrials } from "./run-job.ts";

/** The progress line of each finished trial, on stderr. */
const printProgress = (io: EvalIo) => (result: TaskResult, finished: number, total: number) =>
  io.stderr(`${progressLine(result, finished, total)}\n`);

/**
 * Runs a job's `pending` trials (writing each result as it ends), then reports on every
 * trial of the job: those just run and those `done` before. A cancel reports nothing and
 * says how to go on.
 */
export async function runAndReport(
  job: JobFolder,
  pending: readonly EvalTrial[],
  done: JobTrials["done"],
  invocation: EvalInvocation<"suite" | "resume"> & { readonly baseline: GateBaseline },
): Promise<number> {
  const { command, io } = invocation;
  const outcome = await runJobTrials(job, pending, {
    runner: invocation.deps.runner,
    concurrency: command.concurrency,
    signal: invocation.signal,
    ...(command.queue === undefined ? {} : { queue: command.queue }),
    ...(invocation.deps.trajectoryOf === undefined
      ? {}
      : { trajectoryOf: invocation.deps.trajectoryOf }),
    onTaskFinished: printProgress(io),
    onWarning: (message) => io.stderr(`警告：${message}\n`),
  });
  if (outcome.kind === "cancelled") {
    io.stderr("评测已取消：所有任务已停止，临时工作区已删除\n");
    io.stderr(
      `已结束的试验都记在作业里：coding-agent eval resume ${job.spec.jobId} 只运行其余的\n`,
    );
    return EVAL_EXIT_CODES.cancelled;
  }
  // Every trial of the job now has a result: recorded before, or just run (and recorded).
  const ran = new Map(
    pending.map((trial, index) => [trialKey(trial.task.id, trial.trial), outcome.results[index]]),
  );
  const results = trialsOf(job.spec.tasks, job.spec.trials).map((trial) => {
    const key = trialKey(trial.task.id, trial.trial);
    return (ran.get(key) ?? done.get(key)?.result) as TaskResult;
  });
  return deliverReport({
    suite: job.spec.suite,
    results,
    trials: job.spec.trials,
    ...(invocation.baseline.tasks === undefined ? {} : { baseline: invocation.baseline.tasks }),
    output: command,
    io,
  });
}
