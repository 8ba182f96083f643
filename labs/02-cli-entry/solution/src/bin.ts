/**
 * 作为一个进程的命令：`pnpm exec tsx labs/02-cli-entry/solution/src/bin.ts run "目标"`。
 * 真实的 argv、真实的 Ctrl-C（`process` 就是中断来源），加上模拟的运行。
 */
import { runCli } from "./run-cli.ts";
import { simulateRun } from "./simulated-run.ts";

process.exitCode = await runCli({
  argv: process.argv.slice(2),
  run: simulateRun,
  interrupts: process,
  stdout: (line) => console.log(line),
  stderr: (line) => console.error(line),
});
