import { cancelOnInterrupt, type InterruptSource } from "./cancel-on-interrupt.ts";
import { exitCodeFor, USAGE_EXIT_CODE } from "./exit-codes.ts";
import { type CliArgs, parseCliArgs, USAGE } from "./parse-args.ts";
import type { RunResult } from "./run-result.ts";

/** 启动一次运行；`signal` 被中止后，它必须停下并报告 `cancelled`。 */
export type RunTask = (args: CliArgs, signal: AbortSignal) => Promise<RunResult>;

/** CLI 用到的一切都从参数传入，测试不需要真实的进程就能驱动它。 */
export interface CliOptions {
  /** The arguments after the program name, e.g. `["run", "修复测试", "--max-steps", "5"]`. */
  readonly argv: readonly string[];
  readonly run: RunTask;
  /** Ctrl-C 从哪里来：真实命令里是 `process`，测试里是一个 `EventEmitter`。 */
  readonly interrupts: InterruptSource;
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
}

/**
 * `coding-agent` 命令：解析参数，运行任务（Ctrl-C 接到取消上），打印结局，并以退出码结束。它从不调
 * 用 `process.exit`；由调用方设置 `process.exitCode`，尚未写出的输出不会被截断。
 */
export async function runCli(options: CliOptions): Promise<number> {
  const parsed = parseCliArgs(options.argv);
  if (!parsed.ok) {
    options.stderr(`参数错误：${parsed.problems.join("；")}`);
    options.stderr(USAGE);
    return USAGE_EXIT_CODE;
  }

  const controller = new AbortController();
  // 在运行开始之前就监听：第一轮模型调用期间的 Ctrl-C 也要算数。
  const stopListening = cancelOnInterrupt(options.interrupts, controller);
  try {
    const result = await options.run(parsed.args, controller.signal);
    const code = exitCodeFor(result.status);
    options.stdout(`状态：${result.status}（退出码 ${code}）`);
    options.stdout(`摘要：${result.summary}`);
    return code;
  } catch (error) {
    // 运行应当用状态报告失败；这里出现异常说明运行本身有 bug，用户仍然得到一条消息和一个失败的退出
    // 码，而不是一段调用栈。
    options.stderr(`运行异常：${error instanceof Error ? error.message : String(error)}`);
    return exitCodeFor("failed");
  } finally {
    stopListening();
  }
}
