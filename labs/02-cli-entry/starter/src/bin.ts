/**
 * The command as a process: `pnpm exec tsx labs/02-cli-entry/solution/src/bin.ts run "目标"`.
 * Real argv, real Ctrl-C (`process` is the interrupt source), the simulated run.
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
