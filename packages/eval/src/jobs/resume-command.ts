import type { EvalInvocation } from "../eval-dependencies.ts";
import { EVAL_EXIT_CODES } from "../eval-exit-codes.ts";
import { withTrajectories } from "./backfill-trajectories.ts";
import { baselineOrExit, queueUnreachable, whileLocked } from "./command-checks.ts";
import { openJob, readJobTrials } from "./job-folder.ts";
import { runAndReport } from "./run-and-report.ts";

/**
 * `coding-agent eval resume <job>`: runs only the job's trials that have no result (here or
 * through the queue), holding the job's lock, then reports on every trial of the job.
 */
export async function runResumeCommand(invocation: EvalInvocation<"resume">): Promise<number> {
  const { command, io, deps } = invocation;
  const opened = await openJob(deps.jobsDir, command.job);
  if (!opened.ok) {
    io.stderr(`${opened.message}\n`);
    return EVAL_EXIT_CODES.usage;
  }
  const baseline = await baselineOrExit(command, io);
  if (typeof baseline === "number") return baseline;
  const unreachable = await queueUnreachable(command.queue, io);
  if (unreachable !== undefined) return unreachable;
  const job = opened.job;
  return whileLocked(job, io, async () => {
    // Read under the lock: no other process adds a trial file meanwhile.
    const trials = await readJobTrials(job);
    for (const file of trials.unreadable)
      io.stderr(`试验结果文件读不了，重新运行这次试验：${file}\n`);
    io.stderr(
      `评测作业 ${job.spec.jobId}：已有 ${trials.done.size} 次试验的结果，还要运行 ${trials.pending.length} 次\n`,
    );
    // Trials run by queue workers keep their run folders on the workers' machines: only a
    // local resume looks for the runs of finished trials that have no ATIF file yet.
    if (command.queue === undefined)
      await withTrajectories(job, [...trials.done.values()], invocation);
    return runAndReport(job, trials.pending, trials.done, { ...invocation, baseline });
  });
}
