/**
 * Process entry of `coding-agent`: wires argv, the standard streams and the stop signals
 * to `runCli`. The first SIGINT (Ctrl-C), SIGTERM (service managers, CI runners, `timeout`)
 * or SIGHUP (a closed terminal) cancels the run: it ends `cancelled`, every child is
 * stopped and every temporary folder removed, and the CLI exits 128 + the signal's number
 * (130, 143, 129). A second one exits at once.
 */

import { z } from "zod";
import { createTerminalApprover } from "./approval-prompt.ts";
import { runCli } from "./cli.ts";
import { EXIT_CODES } from "./exit-codes.ts";

// Whoever reads this process's output reads Chinese: zod's own messages too (a settings file,
// a baseline, a model's action, a tool input). Set here, in the command's process only, so a
// program that imports the package keeps its own zod language.
z.config(z.locales.zhCN());

/** The signals that stop a run, with the exit code a shell reports for each (128 + number). */
const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type StopSignal = keyof typeof STOP_SIGNALS;

const controller = new AbortController();
let stoppedBy: StopSignal | undefined;
const onStop = (signal: StopSignal) => {
  if (stoppedBy !== undefined) process.exit(STOP_SIGNALS[stoppedBy]);
  stoppedBy = signal;
  // After SIGHUP the terminal may be gone: a failed write must not stop the cancel.
  try {
    process.stderr.write(
      signal === "SIGINT"
        ? "\n收到 Ctrl-C，正在取消…（再按一次立即退出）\n"
        : `\n收到 ${signal}，正在取消…\n`,
    );
  } catch {}
  controller.abort();
};
const handlers = (Object.keys(STOP_SIGNALS) as StopSignal[]).map(
  (signal) => [signal, () => onStop(signal)] as const,
);
for (const [signal, handler] of handlers) process.on(signal, handler);

const code = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    color: process.stdout.isTTY === true && !process.env.NO_COLOR,
    stderrIsTerminal: process.stderr.isTTY === true,
    // `--approval ask` prompts only on a terminal; without one it refuses (docs/contracts.md §6).
    ...(process.stdin.isTTY && process.stderr.isTTY
      ? {
          approver: createTerminalApprover({
            input: process.stdin,
            output: process.stderr,
            onInterrupt: () => onStop("SIGINT"),
          }),
        }
      : {}),
  },
  controller.signal,
);
for (const [signal, handler] of handlers) process.off(signal, handler);
// A cancel by SIGTERM or SIGHUP exits as that signal's code; Ctrl-C stays 130.
const exitCode =
  code === EXIT_CODES.cancelled && stoppedBy !== undefined ? STOP_SIGNALS[stoppedBy] : code;
// The run has ended and cleaned up: exit now, once the output is written, whatever a
// child left holding one of our pipes (an MCP server's background child, say).
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(exitCode);

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    try {
      stream.write("", () => resolve());
    } catch {
      resolve();
    }
  });
}
