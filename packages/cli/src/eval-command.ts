import path from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentRunner, runEvalCommand } from "@coding-agent/eval";
import { parseCliArgs } from "./args.ts";
import type { CliIo } from "./cli-io.ts";
import type { CliEnv } from "./model-provider.ts";
import { readRunAtif } from "./report/run-atif.ts";
import { codingAgentHome, newRunId, RUN_ID_PATTERN, runDirOf } from "./run-files.ts";

/**
 * The bin that starts this very CLI: from the TypeScript sources (`src/`) the development
 * bin, from a build (`dist/`) the published one. Each task's run is a child process of it,
 * with the environment the CLI was given: its `$CODING_AGENT_HOME` is where the runs go (a
 * checkpoint or a lab test that gives a temporary one keeps them out of the user's home).
 */
function selfRunner(env: CliEnv): AgentRunner {
  const fromSources = import.meta.url.endsWith(".ts");
  const bin = fileURLToPath(
    new URL(fromSources ? "../bin/coding-agent-dev.js" : "../bin/coding-agent.js", import.meta.url),
  );
  // Each run gets its id from here (`--run-id`): a run killed at its timeout still has a
  // folder the job can read its trajectory from.
  return { command: process.execPath, args: [bin], env: { ...env }, newRunId: () => newRunId() };
}

/** A task's `args`, checked by the parser `coding-agent run` itself uses; the usage text left out. */
function validateRunArgs(args: readonly string[]): string | undefined {
  const parsed = parseCliArgs(["run", "评测任务", ...args]);
  if (parsed.ok) return parsed.command.kind === "run" ? undefined : "不是 coding-agent run 的选项";
  return parsed.message.split("\n\n")[0];
}

/**
 * `coding-agent eval …`: the eval package, given this CLI (in `env`) as the agent it runs,
 * `$CODING_AGENT_HOME/evals` as the folder of its jobs (one folder a job, beside `runs/`), and
 * how a trial's run under `$CODING_AGENT_HOME/runs` reads as ATIF (what `trace --atif` writes).
 */
export function runEvalCli(
  argv: readonly string[],
  io: CliIo,
  signal: AbortSignal,
  env: CliEnv,
): Promise<number> {
  const home = codingAgentHome(env);
  return runEvalCommand(argv, io, signal, {
    runner: selfRunner(env),
    validateRunArgs,
    jobsDir: path.join(home, "evals"),
    trajectoryOf: async (runId, cut) =>
      // The id came from a child's output or a trial file: it must name a run folder, nothing beside it.
      RUN_ID_PATTERN.test(runId)
        ? readRunAtif(runDirOf(home, runId), cut)
        : { ok: false, message: `不是运行 id：${runId}` },
  });
}
