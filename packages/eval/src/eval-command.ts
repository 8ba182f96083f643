import { evalUsage, parseEvalArgs } from "./eval-args.ts";
import type { EvalDependencies } from "./eval-dependencies.ts";
import { EVAL_EXIT_CODES } from "./eval-exit-codes.ts";
import { runRegradeCommand } from "./jobs/regrade-command.ts";
import { runResumeCommand } from "./jobs/resume-command.ts";
import { runSuiteCommand } from "./jobs/suite-command.ts";
import type { EvalIo } from "./report-output.ts";
import { runWorkerCommand } from "./worker-command.ts";

export type { EvalIo } from "./report-output.ts";

/**
 * `coding-agent eval …` (the arguments after `eval`): parses them and hands the command to
 * its handler (a new job, a resume, a regrade, a queue worker); returns the exit code.
 */
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
      return runWorkerCommand({ command, io, signal, deps });
    case "suite":
      return runSuiteCommand({ command, io, signal, deps });
    case "resume":
      return runResumeCommand({ command, io, signal, deps });
    case "regrade":
      return runRegradeCommand({ command, io, signal, deps });
    default: {
      const unreachable: never = command;
      throw new TypeError(`unhandled eval command ${JSON.stringify(unreachable)}`);
    }
  }
}
