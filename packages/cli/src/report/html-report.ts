import { createHash } from "node:crypto";
import { html, SafeHtml } from "./html-escape.ts";
import { REPORT_CSS, REPORT_SCRIPT } from "./html-style.ts";
import { printable } from "./printable.ts";
import {
  actionLabel,
  formatCost,
  formatCount,
  formatDuration,
  formatLimits,
  NONE,
  statusLabel,
  statusTone,
  type Tone,
} from "./report-labels.ts";
import type { LooseEvent, StepEntry, StepReport, ToolCall, TraceReport } from "./report-model.ts";

/**
 * The report as one self-contained HTML page: inline style and script, nothing fetched.
 * Every value is in the markup as escaped text (the `html` tag), and the page's policy
 * (`Content-Security-Policy`) loads nothing from anywhere and runs only its own script,
 * named by hash: a second wall, should a value ever get through unescaped.
 */
export function renderHtmlReport(report: TraceReport): string {
  const scriptHash = createHash("sha256").update(REPORT_SCRIPT).digest("base64");
  const policy = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src 'sha256-${scriptHash}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const tone = statusTone(report.status);
  // Offsets are comparable only on one clock: a resumed run restarts it, so no bars then.
  const resumed = report.timeline.some(
    (item) => item.kind === "event" && item.event.type === "resumed",
  );
  const scale = resumed ? undefined : Math.max(report.end?.atMs ?? 0, report.totals.durationMs, 1);
  const page = html`<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="referrer" content="no-referrer">
<title>Trace 报告 · ${report.goal ?? report.runId}</title>
<style>${SafeHtml.trusted(REPORT_CSS)}</style>
</head>
<body>
<main>
${hero(report, tone)}
${stats(report)}
${warnings(report.warnings)}
<div class="section-head">
  <h2>时间线</h2>
  <button type="button" data-open="true">全部展开</button>
  <button type="button" data-open="false">全部收起</button>
</div>
<ol class="timeline">
${report.timeline.map((item) =>
  item.kind === "step" ? step(item.step, scale) : html`<li>${looseEvent(item.event)}</li>`,
)}
</ol>
${end(report, tone)}
<footer>由 <code>coding-agent trace</code> 生成 · 内容全部来自运行的 trace.jsonl，页面不联网</footer>
</main>
<script>${SafeHtml.trusted(REPORT_SCRIPT)}</script>
</body>
</html>
`;
  return page.toString();
}

function hero(report: TraceReport, tone: Tone): SafeHtml {
  const end = report.end;
  return html`<header class="hero tone-${tone}" id="summary">
  <div class="eyebrow">coding-agent · Trace 报告</div>
  <h1>${report.goal ?? "（trace 里没有目标）"}</h1>
  <div class="hero-row">
    <span class="status" data-status="${report.status}"><span class="dot"></span>${statusLabel(report.status)}${
      end === undefined ? "" : html` <small>${end.status} · ${end.code}</small>`
    }</span>
    <span class="run-id">运行 <code>${report.runId}</code></span>
  </div>
  ${end === undefined ? html`<p class="reason">trace 里没有 run_finished：运行没有正常结束，或仍在进行。</p>` : html`<p class="reason">${end.reason}</p>`}
</header>`;
}

function stats(report: TraceReport): SafeHtml {
  const t = report.totals;
  const stat = (label: string, value: string | SafeHtml, alert = false) =>
    html`<div class="stat${alert ? " alert" : ""}"><dt>${label}</dt><dd>${value}</dd></div>`;
  return html`<dl class="stats">
  ${stat("步数", formatCount(t.steps))}
  ${stat("工具调用", html`${formatCount(t.toolCalls)}${t.toolErrors > 0 ? html`<small>${t.toolErrors} 次出错</small>` : ""}`)}
  ${stat("用时", formatDuration(t.durationMs))}
  ${stat("输入 token", formatCount(t.inputTokens))}
  ${stat("输出 token", formatCount(t.outputTokens))}
  ${stat("费用", formatCost(t.costUsd))}
  ${stat("完成被拒", html`${t.rejections}<small>次</small>`, t.rejections > 0)}
  ${t.retries > 0 ? stat("模型重试", html`${t.retries}<small>次</small>`) : ""}
  ${t.compactions > 0 ? stat("上下文压缩", html`${t.compactions}<small>次</small>`) : ""}
</dl>`;
}

function warnings(list: readonly string[]): SafeHtml | string {
  if (list.length === 0) return "";
  return html`<section class="warnings" role="alert"><h2>警告</h2><ul>${list.map(
    (warning) => html`<li>${warning}</li>`,
  )}</ul></section>`;
}

function step(s: StepReport, scale: number | undefined): SafeHtml {
  const tone = stepTone(s);
  const bar =
    scale === undefined
      ? ""
      : html`<div class="bar" aria-hidden="true"><span style="left:${percent(s.startedAtMs, scale)}%;width:${percent(s.durationMs ?? 0, scale)}%"></span></div>`;
  return html`<li class="tone-${tone}" id="step-${s.step}" data-step="${s.step}"><article class="step">
  <div class="step-head">
    <h3>第 ${s.step} 步</h3>
    ${s.model === undefined ? "" : html`<span class="chip">${s.model.ok ? actionLabel(s.model.actionType) : "模型回复无效"}</span>`}
    <span class="meta">开始 <b>+${formatDuration(s.startedAtMs)}</b> · 用时 <b>${formatDuration(s.durationMs)}</b></span>
    <span class="meta push">输入 <b>${formatCount(s.inputTokens)}</b> · 输出 <b>${formatCount(s.outputTokens)}</b> token · 费用 <b>${formatCost(s.costUsd)}</b></span>
  </div>
  ${bar}
  ${s.entries.map(entry)}
</article></li>`;
}

function entry(e: StepEntry): SafeHtml {
  switch (e.kind) {
    case "model":
      return html`<details class="model tone-${e.call.ok ? "info" : "bad"}"><summary><span class="mark">${e.call.ok ? "◆" : "✗"}</span>模型回复<span class="preview">${actionPreview(e.call.detail)}</span><span class="meta">${formatDuration(e.call.durationMs)}</span></summary><div class="io">${e.call.reasoning === undefined ? "" : html`<details class="reasoning"><summary>思考过程</summary><pre>${printable(e.call.reasoning)}</pre></details>`}<pre>${pretty(e.call.detail)}</pre></div></details>`;
    case "tool":
      return toolCall(e.call);
    case "retry":
      return html`<div class="note tone-warn"><b>↻ 模型重试</b> 第 ${e.attempt} 次失败（<code>${e.failureClass}</code>），${formatDuration(e.delayMs)} 后再试<p class="mono">${printable(e.detail)}</p></div>`;
    case "rejection":
      return html`<div class="note tone-bad"><b>✗ 完成被拒</b> ${e.reasons.map((reason, index) => html`${index > 0 ? "、" : ""}<code>${reason}</code>`)}<p>${printable(e.detail)}</p></div>`;
    case "compaction":
      return html`<div class="note tone-info"><b>⇣ 上下文压缩</b> ${formatCount(e.estimatedTokens)} → ${formatCount(e.compactedTokens)} token（预算 ${formatCount(e.maxContextTokens)}）<p>${e.results.map(
        (result, index) =>
          html`${index > 0 ? "、" : ""}<code>${result.tool}</code> ${result.callId} → <code>${result.artifactId}</code>`,
      )}</p></div>`;
    case "event":
      return looseEvent(e.event);
    default: {
      const unreachable: never = e;
      throw new TypeError(`unhandled step entry ${JSON.stringify(unreachable)}`);
    }
  }
}

function toolCall(call: ToolCall): SafeHtml {
  const tone: Tone = call.ok === undefined ? "info" : call.ok ? "good" : "bad";
  const mark = call.ok === undefined ? "…" : call.ok ? "✓" : "✗";
  const state = call.ok === undefined ? "未结束" : call.ok ? "成功" : "出错";
  return html`<details class="call tone-${tone}" data-call-id="${call.callId}"><summary><span class="mark" title="${state}">${mark}</span><code>${call.tool}</code><span class="preview">${oneLine(call.input)}</span><span class="call-id mono">${call.callId}</span><span class="meta">${formatDuration(call.durationMs)}</span><span class="chip">${state}</span></summary><div class="io">
<h4>输入</h4>${call.input === "" ? html`<p class="empty">（trace 里没有输入：调用在执行前就被拒绝）</p>` : html`<pre class="tool-input">${pretty(call.input)}</pre>`}
<h4>输出</h4>${call.output === undefined ? html`<p class="empty">（没有结果：trace 在调用结束前中断）</p>` : html`<pre class="tool-output">${pretty(call.output)}</pre>`}
${textFields(call.output).map(([name, text]) => html`<h4>输出里的 <code>${name}</code>（按行显示）</h4><pre class="tool-text">${printable(text)}</pre>`)}
</div></details>`;
}

/**
 * The multi-line texts of a JSON result (a file's `content`, a command's `stdout`), to show
 * them line by line as well: inside the JSON their line breaks are `\n` escapes.
 */
function textFields(output: string | undefined): [string, string][] {
  const json = output === undefined ? undefined : parseJson(output);
  if (typeof json !== "object" || json === null || Array.isArray(json)) return [];
  return Object.entries(json).flatMap(([name, value]): [string, string][] =>
    typeof value === "string" && value.includes("\n") ? [[name, value]] : [],
  );
}

function looseEvent(event: LooseEvent): SafeHtml {
  const known = event.type === "resumed";
  return html`<div class="loose tone-${known ? "info" : "muted"}" data-event-type="${event.type}"><b>${known ? "↺ 从这里继续运行（resume）" : html`未知事件 <code>${event.type}</code>`}</b> <span class="meta">seq ${event.seq} · +${formatDuration(event.atMs)}</span>${
    Object.keys(event.fields).length === 0
      ? ""
      : html`<pre>${JSON.stringify(event.fields, null, 2)}</pre>`
  }</div>`;
}

function end(report: TraceReport, tone: Tone): SafeHtml {
  const t = report.totals;
  const e = report.end;
  return html`<section class="end tone-${tone}" id="end">
  <h2>结束：${statusLabel(report.status)}</h2>
  <dl>
    <dt>状态</dt><dd><code>${e?.status ?? report.status}</code>${e === undefined ? "" : html` · <code>${e.code}</code>`}</dd>
    <dt>原因</dt><dd>${e?.reason ?? "trace 里没有 run_finished"}</dd>
    <dt>结束于</dt><dd>${e === undefined ? NONE : `+${formatDuration(e.atMs)}`}</dd>
    <dt>预算</dt><dd class="mono">${formatLimits(report.limits)}</dd>
    <dt>合计</dt><dd>${t.steps} 步 · ${t.toolCalls} 次工具调用 · 输入 ${formatCount(t.inputTokens)} / 输出 ${formatCount(t.outputTokens)} token · 费用 ${formatCost(t.costUsd)}</dd>
    ${
      report.subagents === undefined
        ? ""
        : html`<dt>子 Agent</dt><dd>${report.subagents.runs} 个 · ${report.subagents.steps} 步 · ${report.subagents.toolCalls} 次工具调用 · 输入 ${formatCount(report.subagents.inputTokens)} / 输出 ${formatCount(report.subagents.outputTokens)} token · 费用 ${formatCost(report.subagents.costUsd)}（已计入合计）</dd>`
    }
  </dl>
</section>`;
}

function percent(ms: number, scale: number): string {
  return Math.min(100, Math.max(0, (ms / scale) * 100)).toFixed(2);
}

/** How a step reads at a glance: a bad reply, a setback (tool error, rejection), a finish. */
function stepTone(s: StepReport): Tone {
  if (s.model?.ok === false) return "bad";
  const setback = s.entries.some(
    (e) => e.kind === "rejection" || (e.kind === "tool" && e.call.ok === false),
  );
  if (setback) return "warn";
  return s.model?.actionType === "finish" ? "good" : "info";
}

/** A JSON object or list indented for reading; any other text as it is; either printable. */
function pretty(text: string): string {
  const json = parseJson(text);
  return printable(json === undefined ? text : JSON.stringify(json, null, 2));
}

/** The gist of a reply for its summary line: the finish's summary, or the call and input. */
function actionPreview(detail: string): string {
  const action = parseJson(detail) as
    | { type?: unknown; summary?: unknown; tool?: unknown; input?: unknown }
    | undefined;
  if (action?.type === "finish" && typeof action.summary === "string")
    return oneLine(action.summary);
  if (action?.type === "tool_call" && typeof action.tool === "string") {
    return oneLine(`${action.tool} ${JSON.stringify(action.input ?? {})}`);
  }
  return oneLine(detail);
}

/** The first 200 characters on one line (the page clips the rest with an ellipsis). */
function oneLine(text: string): string {
  return printable(text.replace(/\s+/g, " ")).slice(0, 200);
}

function parseJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
