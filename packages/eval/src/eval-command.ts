import { type EvalCommand, evalUsage, parseEvalArgs } from "./eval-args.ts";
import { progressLine } from "./harness.ts";
import { createJob, type JobFolder, openJob, readJobTrials, trialKey } from "./jobs/job-folder.ts";
import { lockJob } from "./jobs/job-lock.ts";
import { regradeTrials } from "./jobs/regrade.ts";
import { runJobTrials } from "./jobs/run-job.ts";
import { canReach, runQueueWorker } from "./queue.ts";
import { deliverReport, type EvalIo, readGateBaseline } from "./report-output.ts";
import type { AgentRunner, TaskResult } from "./run-task.ts";
import { loadSuite, type RunArgsValidator } from "./task-file.ts";
import { trialsOf } from "./trial.ts";

export type { EvalIo } from "./report-output.ts";

/** Exit codes of `coding-agent eval` (docs/contracts.md §7). */
export const EVAL_EXIT_CODES = {
  /** The suite ran: failing tasks are results, not errors. */
  ok: 0,
  /** A regression against the baseline, or a harness error (a timeout, a crash). */
  regressionOrHarnessError: 1,
  usage: 2,
  cancelled: 130,
} as const;

/** What the CLI gives the eval package: how to start itself, its own `run` flag check, where jobs go. */
export interface EvalDependencies {
  readonly runner: AgentRunner;
  readonly validateRunArgs: RunArgsValidator;
  /** The folder of the job folders (the CLI's is `$CODING_AGENT_HOME/evals`). */
  readonly jobsDir: string;
}

/** `coding-agent eval …` (the arguments after `eval`); returns the exit code. */
export async function runEvalCommand(
  argv: readonly string[],
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
): Promise<number> {
  const parsed = parseEvalArgs(argv);
  if (!parsed.ok) {
    io.stderr(`${parsed.message}\n`);
    return EVAL_EXIT_CODES.usage;
  }
  const command = parsed.command;
  switch (command.kind) {
    case "help":
      io.stdout(`${evalUsage()}\n`);
      return EVAL_EXIT_CODES.ok;
    case "worker":
      return runWorker(command, io, signal, deps);
    case "suite":
      return runSuite(command, io, signal, deps);
    case "resume":
      return resumeJob(command, io, signal, deps);
    case "regrade":
      return regradeJob(command, io, signal, deps);
    default: {
      const unreachable: never = command;
      throw new TypeError(`unhandled eval command ${JSON.stringify(unreachable)}`);
    }
  }
}

const progress = (io: EvalIo) => (result: TaskResult, finished: number, total: number) =>
  io.stderr(`${progressLine(result, finished, total)}\n`);

async function runSuite(
  command: Extract<EvalCommand, { kind: "suite" }>,
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
): Promise<number> {
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
  const lock = await lockJob(job.dir);
  if (!lock.ok) throw new Error(`a new job ${job.dir} is locked by process ${lock.pid}`);
  const trials = job.spec.trials;
  const trialCount = trials === 1 ? "" : `，每个任务 ${trials} 次试验`;
  io.stderr(
    command.queue === undefined
      ? `任务集 ${suite.name}：${suite.tasks.length} 个任务${trialCount}，并发 ${command.concurrency}\n`
      : `任务集 ${suite.name}：${suite.tasks.length} 个任务${trialCount}放进队列，等待 worker…\n`,
  );
  io.stderr(`评测作业 ${job.spec.jobId}（结果逐个写进 ${job.dir}）\n`);
  try {
    return await runAndReport(job, trialsOf(suite.tasks, trials), new Map(), {
      command,
      io,
      signal,
      deps,
      ...(baseline.tasks === undefined ? {} : { baseline: baseline.tasks }),
    });
  } finally {
    await lock.release();
  }
}

async function resumeJob(
  command: Extract<EvalCommand, { kind: "resume" }>,
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
): Promise<number> {
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
  return whileLocked(job, io, () => resumeLocked(job, command, io, signal, deps, baseline.tasks));
}

/** The baseline the gate compares with; when it cannot be read, the reason and exit 2. */
async function baselineOrExit(
  command: Parameters<typeof readGateBaseline>[0],
  io: EvalIo,
): Promise<Extract<Awaited<ReturnType<typeof readGateBaseline>>, { ok: true }> | number> {
  const baseline = await readGateBaseline(command);
  if (baseline.ok) return baseline;
  io.stderr(`${baseline.message}\n`);
  return EVAL_EXIT_CODES.usage;
}

/** Exit 1 naming the address when a queue is asked for and Redis cannot be reached. */
async function queueUnreachable(
  queue: Parameters<typeof canReach>[0] | undefined,
  io: EvalIo,
): Promise<number | undefined> {
  if (queue === undefined || (await canReach(queue))) return undefined;
  io.stderr(`连不上 Redis：${queue.host}:${queue.port}\n`);
  return EVAL_EXIT_CODES.regressionOrHarnessError;
}

/** Runs `work` holding the job's lock; a job another live process holds is exit 2, named. */
async function whileLocked(
  job: JobFolder,
  io: EvalIo,
  work: () => Promise<number>,
): Promise<number> {
  const lock = await lockJob(job.dir);
  if (!lock.ok) {
    io.stderr(ownedMessage(job, lock.pid));
    return EVAL_EXIT_CODES.usage;
  }
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/** A job another live process runs: exit 2, naming it (a trial must not run in both). */
function ownedMessage(job: JobFolder, pid: number): string {
  return `作业 ${job.spec.jobId} 正由进程 ${pid} 运行；等它结束，或先停掉它\n`;
}

async function resumeLocked(
  job: JobFolder,
  command: Extract<EvalCommand, { kind: "resume" }>,
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
  baseline: Parameters<typeof deliverReport>[0]["baseline"],
): Promise<number> {
  const trials = await readJobTrials(job);
  for (const file of trials.unreadable)
    io.stderr(`试验结果文件读不了，重新运行这次试验：${file}\n`);
  io.stderr(
    `评测作业 ${job.spec.jobId}：已有 ${trials.done.size} 次试验的结果，还要运行 ${trials.pending.length} 次\n`,
  );
  return runAndReport(job, trials.pending, trials.done, {
    command,
    io,
    signal,
    deps,
    ...(baseline === undefined ? {} : { baseline }),
  });
}

/** Runs `pending` (writing each result as it ends), then reports on every trial of the job. */
async function runAndReport(
  job: JobFolder,
  pending: Parameters<typeof runJobTrials>[1],
  done: Awaited<ReturnType<typeof readJobTrials>>["done"],
  context: {
    readonly command: Extract<EvalCommand, { kind: "suite" | "resume" }>;
    readonly io: EvalIo;
    readonly signal: AbortSignal;
    readonly deps: EvalDependencies;
    readonly baseline?: Parameters<typeof deliverReport>[0]["baseline"];
  },
): Promise<number> {
  const { command, io } = context;
  const outcome = await runJobTrials(job, pending, {
    runner: context.deps.runner,
    concurrency: command.concurrency,
    signal: context.signal,
    ...(command.queue === undefined ? {} : { queue: command.queue }),
    onTaskFinished: progress(io),
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
    ...(context.baseline === undefined ? {} : { baseline: context.baseline }),
    output: command,
    io,
  });
}

async function regradeJob(
  command: Extract<EvalCommand, { kind: "regrade" }>,
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
): Promise<number> {
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
  return whileLocked(job, io, () => regradeLocked(job, command, io, signal, deps, baseline.tasks));
}

async function regradeLocked(
  job: JobFolder,
  command: Extract<EvalCommand, { kind: "regrade" }>,
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
  baseline: Parameters<typeof deliverReport>[0]["baseline"],
): Promise<number> {
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
  const records = [...trials.done.values()];
  io.stderr(
    `评测作业 ${job.spec.jobId}：在保留的工作区上重新评分 ${records.length} 次试验（不调用模型）\n`,
  );
  const outcome = await regradeTrials(job, records, {
    concurrency: command.concurrency,
    signal,
    gradingTaskOf: (recorded) => now.get(recorded.id) ?? recorded,
    onTrialRegraded: (regraded, finished, total) => {
      const line = progressLine(regraded.result, finished, total);
      if (regraded.kind === "regraded") io.stderr(`${line}\n`);
      else if (regraded.kind === "no_workspace")
        io.stderr(`${line}（工作区不在了，保留原来的结果）\n`);
      else io.stderr(`${line}（重新评分出错，保留原来的结果：${regraded.message}）\n`);
    },
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
    ...(baseline === undefined ? {} : { baseline }),
    output: command,
    io,
  });
}

async function runWorker(
  command: Extract<EvalCommand, { kind: "worker" }>,
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
): Promise<number> {
  const unreachable = await queueUnreachable(command.queue, io);
  if (unreachable !== undefined) return unreachable;
  await runQueueWorker({
    address: command.queue,
    runner: deps.runner,
    concurrency: command.concurrency,
    signal,
    ...(command.lockDurationMs === undefined ? {} : { lockDurationMs: command.lockDurationMs }),
    ...(command.stalledIntervalMs === undefined
      ? {}
      : { stalledIntervalMs: command.stalledIntervalMs }),
    onReady: () =>
      io.stderr(
        `eval worker 已连接 ${command.queue.host}:${command.queue.port}，并发 ${command.concurrency}（Ctrl-C 退出）\n`,
      ),
    onTaskStarted: (label) => io.stderr(`开始 ${label}\n`),
    onError: (message) => io.stderr(`eval worker：${message}\n`),
    onTaskFinished: (result, label) =>
      io.stderr(
        `${result.passed ? "✓" : "✗"} ${label} ${(result.durationMs / 1000).toFixed(1)}s\n`,
      ),
  });
  io.stderr("eval worker 已退出\n");
  return EVAL_EXIT_CODES.cancelled;
}
