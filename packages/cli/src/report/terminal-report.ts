import pc from "picocolors";
import { printable } from "./printable.ts";
import {
  actionLabel,
  formatCost,
  formatCount,
  formatDuration,
  formatLimits,
  statusLabel,
  statusTone,
  type Tone,
} from "./report-labels.ts";
import type { LooseEvent, StepEntry, StepReport, TraceReport } from "./report-model.ts";

/** How long a one-line preview of a tool's input or output may get in the terminal. */
const PREVIEW_CHARS = 120;

/**
 * The report as terminal text, Chinese labels. With `color` false (stdout is not a terminal,
 * or `NO_COLOR`) it holds no escape sequence at all; with it, only the colours this function
 * adds: every text from the trace passes through `printable`, so a tool output cannot move
 * the cursor, clear the screen or reorder text in the user's terminal.
 */
export function formatTerminalReport(
  report: TraceReport,
  options: { readonly color: boolean },
): string {
  const c = pc.createColors(options.color);
  const tone = (t: Tone, text: string) => {
    switch (t) {
      case "good":
        return c.green(text);
      case "bad":
        return c.red(text);
      case "warn":
        return c.yellow(text);
      case "blocked":
        return c.magenta(text);
      case "muted":
        return c.gray(text);
      case "info":
        return c.cyan(text);
      default: {
        const unreachable: never = t;
        throw new TypeError(`unhandled tone ${String(unreachable)}`);
      }
    }
  };
  const t = report.totals;
  const status = `${statusMark(report.status)} ${statusLabel(report.status)}`;
  const lines: string[] = [
    c.bold(`Trace 报告 · 运行 ${printable(report.runId)}`),
    `${c.dim("目标")}  ${report.goal === undefined ? "—" : printable(report.goal)}`,
    `${c.dim("状态")}  ${c.bold(tone(statusTone(report.status), status))}${
      report.end === undefined
        ? ""
        : c.dim(`（${printable(report.end.status)} · ${printable(report.end.code)}）`)
    }`,
  ];
  if (report.end !== undefined) lines.push(`${c.dim("原因")}  ${printable(report.end.reason)}`);
  lines.push(`${c.dim("预算")}  ${printable(formatLimits(report.limits))}`);
  lines.push(
    `${c.dim("概览")}  ${t.steps} 步 · ${t.toolCalls} 次工具调用${
      t.toolErrors > 0 ? c.red(`（${t.toolErrors} 次出错）`) : ""
    } · 用时 ${formatDuration(t.durationMs)}`,
    `${c.dim("用量")}  输入 ${formatCount(t.inputTokens)} token · 输出 ${formatCount(t.outputTokens)} token · 费用 ${formatCost(t.costUsd)}`,
    ...childLines(report, c),
    `${c.dim("事件")}  完成被拒 ${t.rejections} 次 · 模型重试 ${t.retries} 次 · 上下文压缩 ${t.compactions} 次`,
    "",
    c.bold("时间线"),
  );
  if (report.timeline.length === 0) lines.push(c.dim("  （没有步骤）"));
  for (const item of report.timeline) {
    if (item.kind === "step") lines.push(...stepLines(item.step, c, tone));
    else lines.push(`${c.cyan("↺")} ${looseLine(item.event)}`);
  }
  lines.push("");
  if (report.end === undefined) {
    lines.push(
      `${c.dim("结束")}  ${tone("info", "trace 里没有 run_finished：运行没有正常结束，或仍在进行")}`,
    );
  } else {
    lines.push(
      `${c.dim("结束")}  ${tone(statusTone(report.end.status), status)} · ${printable(report.end.code)} · ${formatDuration(report.end.atMs)}`,
    );
  }
  if (report.warnings.length > 0) {
    lines.push("", c.yellow(c.bold("警告")));
    for (const warning of report.warnings) lines.push(c.yellow(`  ! ${printable(warning)}`));
  }
  return `${lines.join("\n")}\n`;
}

type Colors = ReturnType<typeof pc.createColors>;

/** The children's part of the usage line above (lesson 39): counted in it, named apart. */
function childLines(report: TraceReport, c: Colors): string[] {
  const part = report.subagents;
  if (part === undefined) return [];
  return [
    `${c.dim("子 Agent")}  ${part.runs} 个 · ${part.steps} 步 · ${part.toolCalls} 次工具调用 · 输入 ${formatCount(part.inputTokens)} token · 输出 ${formatCount(part.outputTokens)} token · 费用 ${formatCost(part.costUsd)}（已计入用量）`,
  ];
}

function stepLines(step: StepReport, c: Colors, tone: (t: Tone, text: string) => string): string[] {
  const model = step.model;
  const action =
    model === undefined
      ? ""
      : model.ok
        ? ` · ${actionLabel(model.actionType)}`
        : ` · ${c.red("模型回复无效")}`;
  const head = `${c.bold(`第 ${step.step} 步`)}  ${c.dim(`+${formatDuration(step.startedAtMs)}`)}  ${formatDuration(step.durationMs)}${action}`;
  const usage = c.dim(
    `    输入 ${formatCount(step.inputTokens)} · 输出 ${formatCount(step.outputTokens)} token · 费用 ${formatCost(step.costUsd)}`,
  );
  return [head, usage, ...step.entries.flatMap((entry) => entryLines(entry, c, tone))];
}

function entryLines(
  entry: StepEntry,
  c: Colors,
  tone: (t: Tone, text: string) => string,
): string[] {
  switch (entry.kind) {
    case "model":
      return [
        `  ${c.dim("模型")} ${preview(entry.call.detail)}`,
        // Collapsed to one line: the whole text is in the trace and the HTML report.
        ...(entry.call.reasoning === undefined
          ? []
          : [`    ${c.dim(`思考：${preview(entry.call.reasoning)}`)}`]),
      ];
    case "tool": {
      const call = entry.call;
      const mark = call.ok === undefined ? tone("info", "…") : call.ok ? c.green("✓") : c.red("✗");
      const state = call.ok === undefined ? c.cyan(" 未结束") : "";
      return [
        `  ${mark} ${c.bold(printable(call.tool))}  ${c.dim(printable(call.callId))}  ${formatDuration(call.durationMs)}${state}`,
        `      ${c.dim("输入")} ${call.input === "" ? "—" : preview(call.input)}`,
        ...(call.output === undefined ? [] : [`      ${c.dim("输出")} ${preview(call.output)}`]),
      ];
    }
    case "retry":
      return [
        `  ${c.yellow("↻")} 模型重试：第 ${entry.attempt} 次失败（${printable(entry.failureClass)}），${formatDuration(entry.delayMs)} 后再试 · ${preview(entry.detail)}`,
      ];
    case "rejection":
      return [
        `  ${c.red("✗")} 完成被拒：${entry.reasons.map(printable).join("、")} · ${preview(entry.detail)}`,
      ];
    case "compaction":
      return [
        `  ${c.cyan("⇣")} 上下文压缩：${formatCount(entry.estimatedTokens)} → ${formatCount(entry.compactedTokens)} token（预算 ${formatCount(entry.maxContextTokens)}），${entry.results.length} 个工具结果换成 artifact 引用`,
      ];
    case "event":
      return [`  ${c.cyan("?")} ${looseLine(entry.event)}`];
    default: {
      const unreachable: never = entry;
      throw new TypeError(`unhandled step entry ${JSON.stringify(unreachable)}`);
    }
  }
}

function looseLine(event: LooseEvent): string {
  const name =
    event.type === "resumed" ? "继续运行（resumed）" : `未知事件 ${printable(event.type)}`;
  const fields =
    Object.keys(event.fields).length === 0 ? "" : ` ${preview(JSON.stringify(event.fields))}`;
  return `${name} · seq ${event.seq}${fields}`;
}

function statusMark(status: string): string {
  switch (statusTone(status)) {
    case "good":
      return "✓";
    case "bad":
    case "blocked":
      return "✗";
    case "warn":
      return "!";
    default:
      return "·";
  }
}

/** One line, at most `PREVIEW_CHARS`, that says how long the whole text was. */
function preview(text: string): string {
  const line = printable(text.replace(/\r?\n/g, " ⏎ "));
  const chars = [...line];
  if (chars.length <= PREVIEW_CHARS) return line;
  return `${chars.slice(0, PREVIEW_CHARS).join("")}…（共 ${formatCount(text.length)} 字符）`;
}
