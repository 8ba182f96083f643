import { GRADER_NAMES } from "./graders.ts";
import { describeDrop, type EvalReport } from "./report.ts";
import { trialLabel } from "./trial.ts";

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
      return `<tr class="${task.passed ? "pass" : "fail"}"><td>${task.passed ? "✓" : "✗"}</td><td>${escapeHtml(trialLabel(task.id, task.trial ?? 1, report.trials ?? 1))}</td><td>${escapeHtml(`${task.status}/${task.code}`)}</td><td>${(task.durationMs / 1000).toFixed(1)}s</td><td><details><summary>评分</summary><ul>${graders}</ul>${task.error === undefined ? "" : `<pre>${escapeHtml(task.error)}</pre>`}</details></td></tr>`;
    })
    .join("\n");
  const regressions =
    report.regressions.length === 0
      ? ""
      : `<p class="fail">回归：${escapeHtml(report.passRateDrops === undefined ? report.regressions.join(", ") : report.passRateDrops.map(describeDrop).join(", "))}</p>`;
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>评测报告 ${escapeHtml(report.suite)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}.pass{color:#060}.fail{color:#a00}pre{white-space:pre-wrap;margin:0;color:#333}ul{list-style:none;padding:0}</style>
</head><body>
<h1>评测报告：${escapeHtml(report.suite)}</h1>
<p>通过 ${report.passed}/${report.total}（${percent}%）· 停止原因：能力 ${report.stops.capability} · 安全 ${report.stops.safety} · 评测框架 ${report.stops.harness}</p>
${regressions}${passAtSection(report)}
<table><thead><tr><th></th><th>任务</th><th>状态</th><th>用时</th><th>评分</th></tr></thead><tbody>
${rows}
</tbody></table>
</body></html>
`;
}

/** With `--trials k` (k > 1): pass@1 and pass@k, then a row per task; nothing for a single trial. */
function passAtSection(report: EvalReport): string {
  const trials = report.trials;
  if (trials === undefined || report.passAt === undefined) return "";
  const at = (values: Readonly<Record<string, number>>, k: number) =>
    (values[String(k)] ?? 0).toFixed(3);
  const rows = (report.taskPassRates ?? [])
    .map(
      (task) =>
        `<tr><td>${escapeHtml(task.id)}</td><td>${task.passed}/${task.trials}</td><td>${at(task.passAt, 1)}</td><td>${at(task.passAt, trials)}</td></tr>`,
    )
    .join("\n");
  return `
<p>每个任务 ${trials} 次试验 · pass@1 ${at(report.passAt, 1)} · pass@${trials} ${at(report.passAt, trials)}（无偏估计）</p>
<table><thead><tr><th>任务</th><th>通过</th><th>pass@1</th><th>pass@${trials}</th></tr></thead><tbody>
${rows}
</tbody></table>`;
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
