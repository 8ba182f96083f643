import { cancelOnInterrupt, type InterruptSource } from "./cancel-on-interrupt.ts";
import { exitCodeFor, USAGE_EXIT_CODE } from "./exit-codes.ts";
import { type CliArgs, parseCliArgs, USAGE } from "./parse-args.ts";
import type { RunResult } from "./run-result.ts";

/** Starts one run; it must stop and report `cancelled` once `signal` is aborted. */
export type RunTask = (args: CliArgs, signal: AbortSignal) => Promise<RunResult>;

/** Everything the CLI touches, passed in so a test can drive it without a real process. */
export interface CliOptions {
  /** The arguments after the program name, e.g. `["run", "修复测试", "--max-steps", "5"]`. */
  readonly argv: readonly string[];
  readonly run: RunTask;
  /** Where Ctrl-C comes from: `process` in the real command, an `EventEmitter` in tests. */
  readonly interrupts: InterruptSource;
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
}

/**
 * The `coding-agent` command: parses the arguments, runs the task with Ctrl-C wired to
 * cancellation, prints the outcome and resolves to the exit code. It never calls
 * `process.exit`; the caller sets `process.exitCode`, so pending output is not cut off.
 */
export async function runCli(options: CliOptions): Promise<number> {
  const parsed = parseCliArgs(options.argv);
  if (!parsed.ok) {
    options.stderr(`参数错误：${parsed.problems.join("；")}`);
    options.stderr(USAGE);
    return USAGE_EXIT_CODE;
  }

  const controller = new AbortController();
  // Listen before the run starts: a Ctrl-C during the first model call must count too.
  const stopListening = cancelOnInterrupt(options.interrupts, controller);
  try {
    const result = await options.run(parsed.args, controller.signal);
    const code = exitCodeFor(result.status);
    options.stdout(`状态：${result.status}（退出码 ${code}）`);
    options.stdout(`摘要：${result.summary}`);
    return code;
  } catch (error) {
    // A run is supposed to report failures as a status; an exception here is a bug in it,
    // and the user still gets a message and a failing exit code instead of a stack trace.
    options.stderr(`运行异常：${error instanceof Error ? error.message : String(error)}`);
    return exitCodeFor("failed");
  } finally {
    stopListening();
  }
}
