import type { EvalInvocation } from "../eval-dependencies.ts";
import { EVAL_EXIT_CODES } from "../eval-exit-codes.ts";
import { progressLine } from "../harness.ts";
import { deliverReport, type EvalIo } from "../report-output.ts";
import type { TaskResult } from "../run-task.ts";
import { loadSuite } from "../task-file.ts";
import { trialsOf } from "../trial.ts";
import { withTrajectories } from "./backfill-trajectories.ts";
import { baselineOrExit, type GateBaseline, whileLocked } from "./command-checks.ts";
import { type JobFolder, openJob, readJobTrials, trialKey } from "./job-folder.ts";
import { type RegradeOutcome, regradeTrials } from "./regrade.ts";

/**
 * `coding-agent eval regrade <job>`: the graders again on the kept workspaces of a job whose
 * every trial has a result, without any model call; then the report on the new grades.
 */
export async function runRegradeCommand(invocation: EvalInvocation<"regrade">): Promise<number> {
  const { command, io, deps } = invocation;
  const opened = await openJob(deps.jobsDir, command.job);
  if (!opened.ok) {
    io.stderr(`${opened.message}\n`);
    return EVAL_EXIT_CODES.usage;
  }
  const job = opened.job;
  if (!job.spec.keepWorkspaces) {
    io.stderr(
      `作业 ${job.spec.jobId} 没有保留工作区（开始时没有 --keep-workspaces），无法重新评分\n`,
    );
    return EVAL_EXIT_CODES.usage;
  }
  const baseline = await baselineOrExit(command, io);
  if (typeof baseline === "number") return baseline;
  return whileLocked(job, io, () => regradeLocked(job, { ...invocation, baseline }));
}

async function regradeLocked(
  job: JobFolder,
  invocation: EvalInvocation<"regrade"> & { readonly baseline: GateBaseline },
): Promise<number> {
  const { command, io, deps } = invocation;
  const trials = await readJobTrials(job);
  if (trials.pending.length > 0) {
    io.stderr(
      `作业 ${job.spec.jobId} 还有 ${trials.pending.length} 次试验没有结果：先运行 coding-agent eval resume ${job.spec.jobId}\n`,
    );
    return EVAL_EXIT_CODES.usage;
  }
  // The suite as it is now grades (a changed test command, paths, expected status); the
  // workspaces are compared with the fixtures the trials started from, as recorded.
  const current = await loadSuite(job.spec.suiteDir, deps.validateRunArgs);
  const now = new Map(current.ok ? current.suite.tasks.map((task) => [task.id, task]) : []);
  if (!current.ok) io.stderr(`任务集读不了，按作业记录的任务评分：${current.message}\n`);
  const records = await withTrajectories(job, [...trials.done.values()], invocation);
  io.stderr(
    `评测作业 ${job.spec.jobId}：在保留的工作区上重新评分 ${records.length} 次试验（不调用模型）\n`,
  );
  const outcome = await regradeTrials(job, records, {
    concurrency: command.concurrency,
    signal: invocation.signal,
    gradingTaskOf: (recorded) => now.get(recorded.id) ?? recorded,
    onTrialRegraded: printRegraded(io),
  });
  if (outcome.kind === "cancelled") {
    io.stderr("重新评分已取消：已评完的试验已写回作业\n");
    return EVAL_EXIT_CODES.cancelled;
  }
  const byKey = new Map(
    records.map((record, index) => [
      trialKey(record.taskId, record.trial),
      outcome.results[index]?.result ?? record.result,
    ]),
  );
  const results = trialsOf(job.spec.tasks, job.spec.trials).map(
    (trial) => byKey.get(trialKey(trial.task.id, trial.trial)) as TaskResult,
  );
  return deliverReport({
    suite: job.spec.suite,
    results,
    trials: job.spec.trials,
    ...(invocation.baseline.tasks === undefined ? {} : { baseline: invocation.baseline.tasks }),
    output: command,
    io,
  });
}

/** A regraded trial's progress line, saying when it kept its old result and why. */
const printRegraded =
  (io: EvalIo) => (regraded: RegradeOutcome, finished: number, total: number) => {
    const line = progressLine(regraded.result, finished, total);
    if (regraded.kind === "regraded") io.stderr(`${line}\n`);
    else if (regraded.kind === "no_workspace")
      io.stderr(`${line}（工作区不在了，保留原来的结果）\n`);
    else io.stderr(`${line}（重新评分出错，保留原来的结果：${regraded.message}）\n`);
  };
