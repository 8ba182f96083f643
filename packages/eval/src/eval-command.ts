import { writeFile } from "node:fs/promises";
import { loadBaseline } from "./baseline.ts";
import { type EvalCommand, evalUsage, parseEvalArgs } from "./eval-args.ts";
import { type HarnessOutcome, progressLine, runTasks } from "./harness.ts";
import { renderHtmlReport } from "./html-report.ts";
import { renderJunit } from "./junit.ts";
import { canReach, runQueueWorker, runTasksOnQueue } from "./queue.ts";
import { buildReport, formatTerminalReport, hasHarnessError } from "./report.ts";
import { type AgentRunner, HARNESS_ERROR_STATUS } from "./run-task.ts";
import { loadSuite, type RunArgsValidator } from "./task-file.ts";

/** Exit codes of `coding-agent eval` (docs/contracts.md §7). */
export const EVAL_EXIT_CODES = {
  /** The suite ran: failing tasks are results, not errors. */
  ok: 0,
  /** A regression against the baseline, or a harness error (a timeout, a crash). */
  regressionOrHarnessError: 1,
  usage: 2,
  cancelled: 130,
} as const;

/** Where `coding-agent eval` writes; the CLI passes its own streams. */
export interface EvalIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** What the CLI gives the eval package: how to start itself, and its own `run` flag check. */
export interface EvalDependencies {
  readonly runner: AgentRunner;
  readonly validateRunArgs: RunArgsValidator;
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
    default: {
      const unreachable: never = command;
      throw new TypeError(`unhandled eval command ${JSON.stringify(unreachable)}`);
    }
  }
}

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
  const baseline =
    command.baseline === undefined ? undefined : await loadBaseline(command.baseline);
  if (baseline?.kind === "invalid") {
    io.stderr(`${baseline.message}\n`);
    return EVAL_EXIT_CODES.usage;
  }
  if (baseline?.kind === "missing" && !command.updateBaseline) {
    io.stderr(`基线文件不存在：${command.baseline}（第一次请加 --update-baseline 生成它）\n`);
    return EVAL_EXIT_CODES.usage;
  }
  const { suite } = loaded;
  const onTaskFinished = (
    result: Parameters<typeof progressLine>[0],
    finished: number,
    total: number,
  ) => io.stderr(`${progressLine(result, finished, total)}\n`);
  let outcome: HarnessOutcome;
  if (command.queue !== undefined) {
    if (!(await canReach(command.queue))) {
      io.stderr(`连不上 Redis：${command.queue.host}:${command.queue.port}\n`);
      return EVAL_EXIT_CODES.regressionOrHarnessError;
    }
    io.stderr(`任务集 ${suite.name}：${suite.tasks.length} 个任务放进队列，等待 worker…\n`);
    outcome = await runTasksOnQueue(suite.tasks, {
      address: command.queue,
      signal,
      ...(command.timeoutMs === undefined ? {} : { defaultTimeoutMs: command.timeoutMs }),
      onTaskFinished,
    });
  } else {
    io.stderr(`任务集 ${suite.name}：${suite.tasks.length} 个任务，并发 ${command.concurrency}\n`);
    outcome = await runTasks(suite.tasks, {
      runner: deps.runner,
      concurrency: command.concurrency,
      signal,
      ...(command.timeoutMs === undefined ? {} : { defaultTimeoutMs: command.timeoutMs }),
      onTaskFinished,
    });
  }
  if (outcome.kind === "cancelled") {
    io.stderr("评测已取消：所有任务已停止，临时工作区已删除\n");
    return EVAL_EXIT_CODES.cancelled;
  }
  // `--update-baseline` accepts this run: its results become the baseline, nothing regresses.
  const report = buildReport({
    suite: suite.name,
    results: outcome.results,
    ...(baseline?.kind === "loaded" && !command.updateBaseline ? { baseline: baseline.tasks } : {}),
  });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  io.stdout(command.json ? json : formatTerminalReport(report));
  if (command.junit !== undefined) await writeFile(command.junit, renderJunit(report));
  if (command.html !== undefined) await writeFile(command.html, renderHtmlReport(report));
  if (command.updateBaseline && command.baseline !== undefined) {
    await writeFile(command.baseline, json);
    io.stderr(`基线已更新：${command.baseline}\n`);
  }
  if (report.regressions.length > 0) {
    io.stderr(`回归：${report.regressions.join(", ")}（基线中通过，这次失败）\n`);
    return EVAL_EXIT_CODES.regressionOrHarnessError;
  }
  if (hasHarnessError(report)) {
    const broken = report.tasks
      .filter((task) => task.status === HARNESS_ERROR_STATUS)
      .map((task) => `${task.id}（${task.code}）`);
    io.stderr(`评测框架错误：${broken.join(", ")}\n`);
    return EVAL_EXIT_CODES.regressionOrHarnessError;
  }
  return EVAL_EXIT_CODES.ok;
}

async function runWorker(
  command: Extract<EvalCommand, { kind: "worker" }>,
  io: EvalIo,
  signal: AbortSignal,
  deps: EvalDependencies,
): Promise<number> {
  if (!(await canReach(command.queue))) {
    io.stderr(`连不上 Redis：${command.queue.host}:${command.queue.port}\n`);
    return EVAL_EXIT_CODES.regressionOrHarnessError;
  }
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
    onTaskStarted: (id) => io.stderr(`开始 ${id}\n`),
    onError: (message) => io.stderr(`eval worker：${message}\n`),
    onTaskFinished: (result) =>
      io.stderr(
        `${result.passed ? "✓" : "✗"} ${result.id} ${(result.durationMs / 1000).toFixed(1)}s\n`,
      ),
  });
  io.stderr("eval worker 已退出\n");
  return EVAL_EXIT_CODES.cancelled;
}
