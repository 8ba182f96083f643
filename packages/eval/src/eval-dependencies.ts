import type { EvalCommand } from "./eval-args.ts";
import type { EvalIo } from "./report-output.ts";
import type { AgentRunner } from "./run-task.ts";
import type { RunArgsValidator } from "./task-file.ts";
import type { TrajectoryOf } from "./trajectory-read.ts";

/** What the CLI gives the eval package: how to start itself, its own `run` flag check, where jobs go. */
export interface EvalDependencies {
  readonly runner: AgentRunner;
  readonly validateRunArgs: RunArgsValidator;
  /** The folder of the job folders (the CLI's is `$CODING_AGENT_HOME/evals`). */
  readonly jobsDir: string;
  /** Reads a trial's run as ATIF, so the job keeps one trajectory file per trial; none without it. */
  readonly trajectoryOf?: TrajectoryOf;
}

/** One `coding-agent eval` subcommand as its handler receives it: what was asked and with what. */
export interface EvalInvocation<Kind extends EvalCommand["kind"]> {
  readonly command: Extract<EvalCommand, { kind: Kind }>;
  readonly io: EvalIo;
  readonly signal: AbortSignal;
  readonly deps: EvalDependencies;
}
