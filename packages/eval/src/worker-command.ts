import type { EvalInvocation } from "./eval-dependencies.ts";
import { EVAL_EXIT_CODES } from "./eval-exit-codes.ts";
import { queueUnreachable } from "./jobs/command-checks.ts";
import { runQueueWorker } from "./queue.ts";

/**
 * `coding-agent eval worker --queue …`: takes trials from the queue until Ctrl-C, then
 * exits 130 (the trials it was running go back to the queue).
 */
export async function runWorkerCommand(invocation: EvalInvocation<"worker">): Promise<number> {
  const { command, io, deps } = invocation;
  const unreachable = await queueUnreachable(command.queue, io);
  if (unreachable !== undefined) return unreachable;
  await runQueueWorker({
    address: command.queue,
    runner: deps.runner,
    concurrency: command.concurrency,
    signal: invocation.signal,
    ...(deps.trajectoryOf === undefined ? {} : { trajectoryOf: deps.trajectoryOf }),
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
