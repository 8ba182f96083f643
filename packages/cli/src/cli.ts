import {
  createRedactor,
  type Provider,
  type Redactor,
  type RetryPolicy,
  type RunResult,
  runAgent,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import type { Approver } from "@coding-agent/tools";
import { type CliCommand, parseCliArgs, usage } from "./args.ts";
import { EXIT_CODES, exitCodeFor } from "./exit-codes.ts";
import { type CliEnv, createModelBackend } from "./model-provider.ts";
import { prepareRunFeatures, provisionalArtifactsDir } from "./run-extensions.ts";
import { prepareRunTools } from "./run-tools.ts";
import { defaultScript, loadScriptFile } from "./script-file.ts";

/** Where the CLI writes; a test passes buffers, `main.ts` passes the process streams. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Asks the user for a permission (`--approval ask`); absent without a terminal, which refuses. */
  readonly approver?: Approver;
  /**
   * The folder of this run's artifacts (`--max-context-tokens`); by default a fresh one
   * under `$CODING_AGENT_HOME/runs/` (see `provisionalArtifactsDir`).
   */
  readonly artifactsDir?: string;
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
  const args = parseCliArgs(argv);
  if (!args.ok) {
    io.stderr(`${args.message}\n`);
    return EXIT_CODES.usage;
  }
  const command = args.command;
  switch (command.kind) {
    case "help":
      io.stdout(`${usage()}\n`);
      return EXIT_CODES.ok;
    case "run": {
      const model = await chooseModel(command, env);
      if (!model.ok) {
        io.stderr(`${model.message}\n`);
        return EXIT_CODES.usage;
      }
      const features = await prepareRunFeatures({
        command,
        redact: model.redact,
        artifactsDir: io.artifactsDir ?? provisionalArtifactsDir(env),
      });
      const tools = await prepareRunTools({
        workspace: command.workspace,
        allowCommands: command.allowCommands,
        approval: command.approval,
        sandbox: command.sandbox,
        ...(io.approver === undefined ? {} : { approver: io.approver }),
        ...(command.testCommand === undefined ? {} : { testCommand: command.testCommand }),
        allowPaths: command.allowPaths,
        // One value for the tools' paging and the loop's cap: a tool never returns more
        // than the loop passes on, so what it says it left out is what is missing.
        maxObservationChars: command.maxObservationChars,
        redact: model.redact,
        wholeCommandOutput: features.wholeCommandOutput,
      });
      if (!tools.ok) {
        io.stderr(`${tools.message}\n`);
        return EXIT_CODES.usage;
      }
      if (tools.warning !== undefined) io.stderr(`${tools.warning}\n`);
      io.stderr(`coding-agent：开始运行（${model.label}，Ctrl-C 取消）\n`);
      const result = await runAgent(
        command.goal,
        model.provider,
        { ...tools.tools, ...features.tools },
        command.limits,
        signal,
        {
          redact: model.redact,
          extensions: features.extensions,
          maxObservationChars: command.maxObservationChars,
          ...(command.retries === 0 ? {} : { retry: { policy: retryPolicy(command.retries) } }),
        },
      );
      const changed = tools.edits.diff().files;
      if (changed.length > 0) {
        const lines = changed.map((file) => `  ${file.path} +${file.added} -${file.removed}`);
        io.stderr(`coding-agent：本次运行修改了 ${changed.length} 个文件\n${lines.join("\n")}\n`);
      }
      io.stdout(command.json ? `${JSON.stringify(toJson(result))}\n` : formatResult(result));
      return exitCodeFor(result.status);
    }
    default: {
      const unreachable: never = command;
      throw new TypeError(`unhandled command ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Backoff of the CLI's model retries: 0.5 s doubling up to 8 s, with jitter. */
function retryPolicy(retries: number): RetryPolicy {
  return { maxAttempts: retries + 1, baseDelayMs: 500, maxDelayMs: 8_000 };
}

/** The model a run talks to, how to describe it, and what to mask. */
type ModelChoice =
  | {
      readonly ok: true;
      readonly provider: Provider;
      readonly label: string;
      readonly redact: Redactor;
    }
  | { readonly ok: false; readonly message: string };

/** The fake model (its script) or a real backend, from the command and the environment. */
async function chooseModel(
  command: Extract<CliCommand, { kind: "run" }>,
  env: CliEnv,
): Promise<ModelChoice> {
  const { name } = command.provider;
  if (name === "fake") {
    let turns = defaultScript(command.goal);
    if (command.scriptPath !== undefined) {
      const loaded = await loadScriptFile(command.scriptPath);
      if (!loaded.ok) return loaded;
      turns = [...loaded.turns];
    }
    const redact = createRedactor({ env });
    return { ok: true, provider: createScriptedProvider(turns), label: "Fake Model", redact };
  }
  const backend = createModelBackend({ ...command.provider, name }, env);
  if (!backend.ok) return backend;
  return {
    ok: true,
    provider: backend.provider,
    label: `${name} · ${command.provider.model ?? ""} · ${backend.endpoint}`,
    // The key is masked wherever it could show: results, reasons, observations.
    redact: createRedactor({ env, secrets: [backend.apiKey] }),
  };
}

/** The result as plain JSON (the history view becomes an array). */
function toJson(result: RunResult): Record<string, unknown> {
  return { ...result, messages: [...result.messages] };
}

const STATUS_LABEL: Record<RunResult["status"], string> = {
  completed: "完成",
  failed: "失败",
  budget_exceeded: "超出预算",
  blocked: "被阻止",
  cancelled: "已取消",
};

function formatResult(result: RunResult): string {
  return [
    `状态：${result.status}（${STATUS_LABEL[result.status]}，${result.code}）`,
    result.status === "completed" ? `摘要：${result.summary}` : `原因：${result.reason}`,
    `步数：${result.steps} · 工具调用：${result.toolCalls} · token：${result.usage.inputTokens} 输入 / ${result.usage.outputTokens} 输出`,
    "",
  ].join("\n");
}
