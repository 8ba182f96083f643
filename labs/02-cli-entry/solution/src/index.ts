export { cancelOnInterrupt, type InterruptSource } from "./cancel-on-interrupt.ts";
export { CliError, UnknownRunStatusError } from "./errors.ts";
export { exitCodeFor, USAGE_EXIT_CODE } from "./exit-codes.ts";
export {
  type CliArgs,
  DEFAULT_MAX_STEPS,
  type ParseArgsResult,
  parseCliArgs,
  USAGE,
} from "./parse-args.ts";
export { type CliOptions, type RunTask, runCli } from "./run-cli.ts";
export type { RunResult, RunStatus } from "./run-result.ts";
export { simulateRun } from "./simulated-run.ts";
