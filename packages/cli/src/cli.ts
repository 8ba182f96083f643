import { type RunResult, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { parseCliArgs, usage } from "./args.ts";
import { BUILTIN_TOOLS } from "./builtin-tools.ts";
import { EXIT_CODES, exitCodeFor } from "./exit-codes.ts";
import { defaultScript, loadScriptFile } from "./script-file.ts";

/** Where the CLI writes; a test passes buffers, `main.ts` passes the process streams. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * Runs the CLI for `argv` (without node and the script path) and returns the exit
 * code. Never calls `process.exit`; `signal` is the user's Ctrl-C.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  signal: AbortSignal,
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
      let turns = defaultScript(command.goal);
      if (command.scriptPath !== undefined) {
        const loaded = await loadScriptFile(command.scriptPath);
        if (!loaded.ok) {
          io.stderr(`${loaded.message}\n`);
          return EXIT_CODES.usage;
        }
        turns = [...loaded.turns];
      }
      io.stderr("coding-agent：开始运行（Ctrl-C 取消）\n");
      const result = await runAgent(
        command.goal,
        createScriptedProvider(turns),
        BUILTIN_TOOLS,
        command.limits,
        signal,
      );
      io.stdout(command.json ? `${JSON.stringify(toJson(result))}\n` : formatResult(result));
      return exitCodeFor(result.status);
    }
    default: {
      const unreachable: never = command;
      throw new TypeError(`unhandled command ${JSON.stringify(unreachable)}`);
    }
  }
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
