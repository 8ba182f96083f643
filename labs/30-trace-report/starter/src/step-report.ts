import type { TraceEvent } from "@coding-agent/agent-core";

/**
 * 报告读到的一个 trace 事件：agent-core 的 `TraceEvent`。算了费用的运行在 `model_completed`
 * 上还带 `costUsd`（这次调用的美元费用；价格未知时为 `null`）。
 */
export type ReportEvent = TraceEvent & { readonly costUsd?: number | null };

/** 一次工具调用：开始时的输入，结束时的结果。 */
export interface CallRow {
  readonly callId: string;
  readonly tool: string;
  readonly input: string;
  /** `undefined`：trace 里只有开始、没有结束（运行在调用中途中断）。 */
  readonly ok?: boolean;
  readonly output?: string;
  /** 从 `tool_started` 到 `tool_completed` 的毫秒数；没有结束时为 `null`。 */
  readonly durationMs: number | null;
}

/** 报告里的一步：这一步模型调用的 token 与费用，它的工具调用和被拒绝的完成。 */
export interface StepRow {
  readonly step: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** 美元；`null`：有一次调用的价格未知；`undefined`：trace 里没有费用。 */
  readonly costUsd: number | null | undefined;
  readonly calls: readonly CallRow[];
  /** 这一步每次被拒绝的完成的理由。 */
  readonly rejections: readonly (readonly string[])[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type CallDraft = Mutable<CallRow> & { readonly startedAtMs: number };
type StepDraft = Mutable<Omit<StepRow, "calls" | "rejections">> & {
  readonly calls: CallDraft[];
  readonly rejections: (readonly string[])[];
};

/**
 * 按步汇总一次运行的 trace 事件（按 seq 的顺序）：每一步自己的 token 和费用，
 * 每个工具调用配上它的结果，每次被拒绝的完成。步按编号排好。
 */
export function summarizeSteps(events: readonly ReportEvent[]): StepRow[] {
  const steps = new Map<number, StepDraft>();
  const stepOf = (step: number): StepDraft => {
    let row = steps.get(step);
    if (row === undefined) {
      row = {
        step,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: undefined,
        calls: [],
        rejections: [],
      };
      steps.set(step, row);
    }
    return row;
  };
  // #region exercise
  // TODO(lab-30): 现在一步也不汇总：报告的时间线是空的。
  //   目标：按 README“按步汇总”那张表，把每个事件记到它那一步的行上（stepOf 找到或建出这一行）。
  //   约束：费用有“没有 / 数字 / 未知”三种状态，哪一种都不能变成 0；每个结果配回它自己的那次调用，
  //   执行前就被拒绝的调用也要留在报告里；不认识的事件类型不能让报告出错。
  void events;
  void stepOf;
  // #endregion exercise
  return [...steps.values()]
    .sort((a, b) => a.step - b.step)
    .map((row) => ({ ...row, calls: row.calls.map(({ startedAtMs: _, ...call }) => call) }));
}

/**
 * 把一段文本变成显示的正是这段文本的 HTML：放在元素内容里，或放在带引号的属性值里都行。
 */
export function escapeHtml(text: string): string {
  // #region exercise
  // TODO(lab-30): 现在原样返回：工具输出里的 <script> 会被浏览器当成代码执行，一个引号就能
  //   结束属性值。改成把 & < > " ' 换成 HTML 实体 &amp; &lt; &gt; &quot; &#39;。想一想：先换哪一个？
  return text;
  // #endregion exercise
}

/** 美元费用；没有费用或价格未知时是 "—"（两者都不能显示成 $0）。 */
export function formatCost(cost: number | null | undefined): string {
  if (cost === undefined || cost === null) return "—";
  return `$${Number(cost.toPrecision(3))}`;
}

/**
 * 报告页面时间线上的一步：一个 `<li>`，每个工具调用一个可以展开的 `<details>`。
 * trace 里来的每个值都经过 `escapeHtml`，属性值也一样。
 */
export function renderStep(row: StepRow): string {
  const calls = row.calls.map((call) => {
    const state = call.ok === undefined ? "未结束" : call.ok ? "成功" : "出错";
    const output =
      call.output === undefined
        ? `<p class="empty">（没有结果）</p>`
        : `<pre class="output">${escapeHtml(call.output)}</pre>`;
    return [
      `<details class="call" data-call-id="${escapeHtml(call.callId)}" data-tool="${escapeHtml(call.tool)}">`,
      `<summary>${escapeHtml(call.tool)} · ${state} · ${call.durationMs ?? "—"} ms</summary>`,
      `<pre class="input">${escapeHtml(call.input)}</pre>`,
      output,
      "</details>",
    ].join("\n");
  });
  const rejections = row.rejections.map(
    (reasons) => `<p class="rejected">完成被拒：${escapeHtml(reasons.join("、"))}</p>`,
  );
  return [
    `<li class="step" data-step="${row.step}">`,
    `<h3>第 ${row.step} 步</h3>`,
    `<p class="usage">输入 ${row.inputTokens} · 输出 ${row.outputTokens} token · 费用 ${formatCost(row.costUsd)}</p>`,
    ...calls,
    ...rejections,
    "</li>",
  ].join("\n");
}
