/** `@coding-agent/cli`: the `coding-agent` command, usable as a library for tests. */
export {
  type CliArgsResult,
  type CliCommand,
  COMMANDS,
  parseCliArgs,
  RUN_FLAGS,
  usage,
} from "./args.ts";
export { BUILTIN_TOOLS } from "./builtin-tools.ts";
export { type CliIo, runCli } from "./cli.ts";
export { EXIT_USAGE, exitCodeFor } from "./exit-codes.ts";
export { defaultScript, loadScriptFile, type ScriptLoadResult } from "./script-file.ts";
