import { parseCliArgs, usage } from "./args.ts";
import type { CliIo } from "./cli-io.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import type { CliEnv } from "./model-provider.ts";
import { NO_RUN_DEFAULTS, type RunDefaults } from "./run-defaults.ts";

// Each command's module is imported when that command runs: `--help` or `runs` does not
// load a run's assembly, the MCP SDK, the report or BullMQ (start-up is a user's wait).

/** What `runCliCaptured` saw: the exit code and everything printed, in order per stream. */
export interface CapturedCliRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `coding-agent <argv>` in this process with exactly `env`, its output collected instead of
 * printed (no terminal: `--approval ask` refuses, no colour, no streamed text).
 */
export async function runCliCaptured(
  argv: readonly string[],
  env: CliEnv,
  signal: AbortSignal = new AbortController().signal,
): Promise<CapturedCliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  };
  const exitCode = await runCli(argv, io, signal, env);
  return { exitCode, stdout, stderr };
}

/**
 * Runs the CLI for `argv` (without node and the script path) and returns the exit
 * code. Never calls `process.exit`; `signal` is the user's Ctrl-C; `env` is where
 * keys and base URLs are read from (the process environment by default).
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  signal: AbortSignal,
  env: CliEnv = process.env,
): Promise<number> {
  // `run` takes its defaults from the settings files: read before its flags are validated.
  let defaults: RunDefaults = NO_RUN_DEFAULTS;
  if (argv[0] === "run") {
    const { loadRunDefaults } = await import("./load-run-defaults.ts");
    const loaded = await loadRunDefaults(argv.slice(1), env);
    if (!loaded.ok) {
      io.stderr(`${loaded.message}\n`);
      return EXIT_CODES.usage;
    }
    defaults = loaded.defaults;
  }
  const args = parseCliArgs(argv, defaults);
  if (!args.ok) {
    io.stderr(`${args.message}\n`);
    return EXIT_CODES.usage;
  }
  const command = args.command;
  switch (command.kind) {
    case "help":
      io.stdout(`${usage()}\n`);
      return EXIT_CODES.ok;
    case "print-config":
      io.stdout(command.text);
      return EXIT_CODES.ok;
    case "run":
      return (await import("./run-session.ts")).startRun(command, io, signal, env);
    case "resume":
      return (await import("./run-session.ts")).resumeRun(
        command.runId,
        command.json,
        io,
        signal,
        env,
      );
    case "replay":
      return (await import("./replay.ts")).replayRun(command.target, command.json, io, signal, env);
    case "runs":
      return listRunsCommand(command.json, io, env);
    case "trace":
      return (await import("./report/trace-command.ts")).runTraceCommand(command, io, env);
    case "eval":
      return (await import("./eval-command.ts")).runEvalCli(command.argv, io, signal, env);
    default: {
      const unreachable: never = command;
      throw new TypeError(`unhandled command ${JSON.stringify(unreachable)}`);
    }
  }
}

/** `coding-agent runs`: every run under `$CODING_AGENT_HOME`, newest first. */
async function listRunsCommand(json: boolean, io: CliIo, env: CliEnv): Promise<number> {
  const { codingAgentHome, listRuns } = await import("./run-files.ts");
  const { formatRunsTable } = await import("./runs-table.ts");
  const runs = await listRuns(codingAgentHome(env));
  if (json) {
    io.stdout(`${JSON.stringify(runs)}\n`);
    return EXIT_CODES.ok;
  }
  if (runs.length === 0) {
    io.stdout("还没有运行记录\n");
    return EXIT_CODES.ok;
  }
  io.stdout(formatRunsTable(runs));
  return EXIT_CODES.ok;
}
