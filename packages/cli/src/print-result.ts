import {
  type FinishEvidence,
  formatUsd,
  type Message,
  type RunResult,
} from "@coding-agent/agent-core";
import type { CliIo } from "./cli-io.ts";
import { exitCodeFor } from "./exit-codes.ts";
import type { SubagentsSpent } from "./subagents/spend.ts";

/** A run's end as `run` prints it. */
export interface PrintedRun {
  /** `--json`: the whole result as one JSON document. */
  readonly json: boolean;
  readonly result: RunResult & { readonly subagents?: SubagentsSpent };
  /** The finish gate's evidence (null in the JSON when absent). */
  readonly evidence?: FinishEvidence;
  /** Absent when the run never had a folder. */
  readonly runId?: string;
  readonly runDir?: string;
}

/** Prints a result as `run` does (JSON with `--json`) and returns the exit code of its status. */
export function printRunResult(io: CliIo, run: PrintedRun): number {
  const { result, evidence, runId, runDir } = run;
  const printed = {
    ...result,
    // The reasoning stays in the run's own record (state.jsonl, trace.jsonl), redacted there;
    // what a vendor wants back is held unredacted in memory and never goes to stdout.
    messages: result.messages.map(withoutReasoning),
    ...(runId === undefined ? {} : { runId, runDir }),
    evidence: evidence ?? null,
  };
  io.stdout(run.json ? `${JSON.stringify(printed)}\n` : formatResult(result));
  return exitCodeFor(result.status);
}

/** A message as `--json` prints it: without the reasoning it carried. */
function withoutReasoning(message: Message): Message {
  if (!("reasoning" in message)) return message;
  const { reasoning: _kept, ...rest } = message;
  return rest;
}

const STATUS_LABEL: Record<RunResult["status"], string> = {
  completed: "完成",
  failed: "失败",
  budget_exceeded: "超出预算",
  blocked: "被阻止",
  cancelled: "已取消",
};

function formatResult(result: RunResult & { readonly subagents?: SubagentsSpent }): string {
  const cost = (usd: number | null) =>
    usd === null ? "未知（没有这个模型的价格）" : formatUsd(usd);
  const children = result.subagents;
  return [
    `状态：${result.status}（${STATUS_LABEL[result.status]}，${result.code}）`,
    result.status === "completed" ? `摘要：${result.summary}` : `原因：${result.reason}`,
    `步数：${result.steps} · 工具调用：${result.toolCalls} · token：${result.usage.inputTokens} 输入 / ${result.usage.outputTokens} 输出 · 成本：${cost(result.costUsd)}`,
    // The children's part of the token and cost totals above (their steps are their own).
    ...(children === undefined || children.runs === 0
      ? []
      : [
          `其中子 Agent（${children.runs} 个）：步数 ${children.steps} · 工具调用 ${children.toolCalls} · token：${children.usage.inputTokens} 输入 / ${children.usage.outputTokens} 输出 · 成本：${cost(children.costUsd)}`,
        ]),
    "",
  ].join("\n");
}

/** The files the run changed, and on a terminal its id. */
export function printRunEnd(
  io: CliIo,
  changed: readonly { path: string; added: number; removed: number }[],
  runId: string,
): void {
  if (changed.length > 0) {
    const lines = changed.map((file) => `  ${file.path} +${file.added} -${file.removed}`);
    io.stderr(`coding-agent：本次运行修改了 ${changed.length} 个文件\n${lines.join("\n")}\n`);
  }
  // On a terminal the person who started the run gets its id (piped output stays as it was:
  // `--json` carries `runId`, and a script's captured output does not change from run to run).
  if (io.stderrIsTerminal === true)
    io.stderr(`coding-agent：运行 ID ${runId}（coding-agent trace ${runId} 查看报告）\n`);
}
