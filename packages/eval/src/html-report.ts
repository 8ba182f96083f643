import { GRADER_NAMES } from "./graders.ts";
import type { EvalReport } from "./report.ts";

/**
 * One self-contained page (inline CSS, no script, nothing fetched): the pass rate, the
 * stops and a row per task whose graders open with <details>. Every value from a task is
 * escaped text, so a test output holding `<script>` shows as text.
 */
export function renderHtmlReport(report: EvalReport): string {
  const percent = (report.passRate * 100).toFixed(0);
  const rows = report.tasks
    .map((task) => {
      const graders = GRADER_NAMES.map((name) => {
        const verdict = task.graders[name];
        return `<li class="${verdict.pass ? "pass" : "fail"}">${verdict.pass ? "✓" : "✗"} <b>${escapeHtml(name)}</b><pre>${escapeHtml(verdict.detail)}</pre></li>`;
      }).join("");
      return `<tr class="${task.passed ? "pass" : "fail"}"><td>${task.passed ? "✓" : "✗"}</td><td>${escapeHtml(task.id)}</td><td>${escapeHtml(`${task.status}/${task.code}`)}</td><td>${(task.durationMs / 1000).toFixed(1)}s</td><td><details><summary>评分</summary><ul>${graders}</ul>${task.error === undefined ? "" : `<pre>${escapeHtml(task.error)}</pre>`}</details></td></tr>`;
    })
    .join("\n");
  const regressions =
    report.regressions.length === 0
      ? ""
      : `<p class="fail">回归：${escapeHtml(report.regressions.join(", "))}</p>`;
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>评测报告 ${escapeHtml(report.suite)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}.pass{color:#060}.fail{color:#a00}pre{white-space:pre-wrap;margin:0;color:#333}ul{list-style:none;padding:0}</style>
</head><body>
<h1>评测报告：${escapeHtml(report.suite)}</h1>
<p>通过 ${report.passed}/${report.total}（${percent}%）· 停止原因：能力 ${report.stops.capability} · 安全 ${report.stops.safety} · 评测框架 ${report.stops.harness}</p>
${regressions}
<table><thead><tr><th></th><th>任务</th><th>状态</th><th>用时</th><th>评分</th></tr></thead><tbody>
${rows}
</tbody></table>
</body></html>
`;
}

/** Text as HTML: the characters that could open markup or end an attribute are escaped. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
