import type { EvalInvocation } from "../eval-dependencies.ts";
import { EVAL_EXIT_CODES } from "../eval-exit-codes.ts";
import { loadSuite } from "../task-file.ts";
import { trialsOf } from "../trial.ts";
import { baselineOrExit, queueUnreachable, whileLocked } from "./command-checks.ts";
import { createJob } from "./job-folder.ts";
import { runAndReport } from "./run-and-report.ts";

/**
 * `coding-agent eval <suite>`: a new job for the suite (its folder and `job.json` first),
 * every trial run and recorded as it ends, then the report.
 */
export async function runSuiteCommand(invocation: EvalInvocation<"suite">): Promise<number> {
  const { command, io, deps } = invocation;
  const loaded = await loadSuite(command.suiteDir, deps.validateRunArgs);
  if (!loaded.ok) {
    io.stderr(`${loaded.message}\n`);
    return EVAL_EXIT_CODES.usage;
  }
  const baseline = await baselineOrExit(command, io);
  if (typeof baseline === "number") return baseline;
  const { suite } = loaded;
  const unreachable = await queueUnreachable(command.queue, io);
  if (unreachable !== undefined) return unreachable;
  const job = await createJob({
    jobsDir: deps.jobsDir,
    suite: suite.name,
    suiteDir: suite.dir,
    tasks: suite.tasks,
    trials: command.trials ?? 1,
    ...(command.timeoutMs === undefined ? {} : { timeoutMs: command.timeoutMs }),
    keepWorkspaces: command.keepWorkspaces === true,
  });
  const trials = job.spec.trials;
  const trialCount = trials === 1 ? "" : `，每个任务 ${trials} 次试验`;
  io.stderr(
    command.queue === undefined
      ? `任务集 ${suite.name}：${suite.tasks.length} 个任务${trialCount}，并发 ${command.concurrency}\n`
      : `任务集 ${suite.name}：${suite.tasks.length} 个任务${trialCount}放进队列，等待 worker…\n`,
  );
  io.stderr(`评测作业 ${job.spec.jobId}（结果逐个写进 ${job.dir}）\n`);
  // A new job's lock is free: no other process knows its id yet.
  return whileLocked(job, io, () =>
    runAndReport(job, trialsOf(suite.tasks, trials), new Map(), { ...invocation, baseline }),
  );
}
