/**
 * Process entry of `coding-agent`: wires argv, the standard streams and Ctrl-C
 * to `runCli`. The first SIGINT cancels the run (it ends `cancelled`, exit 130);
 * a second one exits at once.
 */
import { createTerminalApprover } from "./approval-prompt.ts";
import { runCli } from "./cli.ts";
import { EXIT_CODES } from "./exit-codes.ts";

const controller = new AbortController();
let interrupts = 0;
const onSigint = () => {
  interrupts += 1;
  if (interrupts > 1) process.exit(EXIT_CODES.cancelled);
  process.stderr.write("\n收到 Ctrl-C，正在取消…（再按一次立即退出）\n");
  controller.abort();
};
process.on("SIGINT", onSigint);

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
            onInterrupt: onSigint,
          }),
        }
      : {}),
  },
  controller.signal,
);
process.off("SIGINT", onSigint);
process.exitCode = code;
