/**
 * The report page's style and its one script, inline (the page is one file that never
 * touches the network). The script only opens and closes the `<details>`: every value is
 * already in the markup as escaped text, so the page reads the same with scripts off.
 */

export const REPORT_CSS = `
:root {
  --bg: #f6f7f9; --card: #ffffff; --ink: #1f2430; --ink-2: #5b6372; --line: #e3e6eb;
  --code-bg: #f3f4f7; --accent: #3b5bdb;
  --good: #1b7f43; --good-bg: #e8f6ee; --bad: #c0262d; --bad-bg: #fdecec;
  --warn: #a85b00; --warn-bg: #fff4e0; --blocked: #7a2fb8; --blocked-bg: #f4ebfc;
  --muted: #5b6372; --muted-bg: #eef0f3; --info: #0b6aa2; --info-bg: #e6f2fa;
  --sans: "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Hiragino Sans GB",
    "Microsoft YaHei", "Source Han Sans SC", system-ui, -apple-system, "Segoe UI", sans-serif;
  --mono: "JetBrains Mono", "SFMono-Regular", "Cascadia Mono", Menlo, Consolas,
    "Noto Sans Mono CJK SC", "Noto Sans CJK SC", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14161b; --card: #1d2027; --ink: #e6e8ec; --ink-2: #a0a7b4; --line: #2d313a;
    --code-bg: #161920; --accent: #8ea2ff;
    --good: #5fd38d; --good-bg: #173325; --bad: #ff7b80; --bad-bg: #3a1c1f;
    --warn: #f0b35a; --warn-bg: #37291a; --blocked: #c99af0; --blocked-bg: #2e2139;
    --muted: #a0a7b4; --muted-bg: #262a32; --info: #6cc3f5; --info-bg: #17303f;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--ink); font-family: var(--sans);
  font-size: 15px; line-height: 1.65;
}
main { max-width: 980px; margin: 0 auto; padding: 28px 20px 48px; }
code, pre, .mono { font-family: var(--mono); font-size: 13px; }
h1, h2, h3 { line-height: 1.3; margin: 0; }
.tone-good { --tone: var(--good); --tone-bg: var(--good-bg); }
.tone-bad { --tone: var(--bad); --tone-bg: var(--bad-bg); }
.tone-warn { --tone: var(--warn); --tone-bg: var(--warn-bg); }
.tone-blocked { --tone: var(--blocked); --tone-bg: var(--blocked-bg); }
.tone-muted { --tone: var(--muted); --tone-bg: var(--muted-bg); }
.tone-info { --tone: var(--info); --tone-bg: var(--info-bg); }

.hero {
  background: var(--card); border: 1px solid var(--line); border-top: 6px solid var(--tone);
  border-radius: 14px; padding: 22px 24px; display: grid; gap: 10px;
}
.eyebrow { color: var(--ink-2); font-size: 13px; letter-spacing: .04em; }
.hero h1 { font-size: 22px; font-weight: 700; overflow-wrap: anywhere; }
.hero-row { display: flex; flex-wrap: wrap; align-items: center; gap: 10px 16px; }
.status {
  display: inline-flex; align-items: center; gap: 8px; padding: 4px 14px 4px 10px;
  border-radius: 999px; background: var(--tone-bg); color: var(--tone); font-weight: 700;
  font-size: 16px;
}
.status .dot { width: 10px; height: 10px; border-radius: 50%; background: var(--tone); }
.status small { font-weight: 500; font-family: var(--mono); font-size: 12px; opacity: .85; }
.run-id { color: var(--ink-2); font-size: 13px; overflow-wrap: anywhere; }
.reason { margin: 0; color: var(--ink); overflow-wrap: anywhere; }

.stats {
  display: grid; grid-template-columns: repeat(auto-fit, minmax(112px, 1fr)); gap: 10px;
  margin: 18px 0 8px;
}
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 12px 14px; }
.stat dt { color: var(--ink-2); font-size: 12.5px; }
.stat dd { margin: 2px 0 0; font-size: 20px; font-weight: 700; font-variant-numeric: tabular-nums; }
.stat dd small { font-size: 12.5px; font-weight: 500; color: var(--ink-2); margin-left: 4px; }
.stat.alert dd { color: var(--bad); }

.warnings {
  margin: 14px 0; padding: 12px 16px; border-radius: 12px; background: var(--warn-bg);
  color: var(--warn); border: 1px solid color-mix(in srgb, var(--warn) 30%, transparent);
}
.warnings h2 { font-size: 15px; margin-bottom: 4px; }
.warnings ul { margin: 0; padding-left: 20px; }

.section-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 28px 0 12px; }
.section-head h2 { font-size: 18px; margin-right: auto; }
button {
  font: inherit; font-size: 13px; color: var(--accent); background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; padding: 4px 12px; cursor: pointer;
}
button:hover { border-color: var(--accent); }

.timeline { list-style: none; margin: 0; padding: 0 0 0 22px; position: relative; }
.timeline::before {
  content: ""; position: absolute; left: 7px; top: 6px; bottom: 6px; width: 2px; background: var(--line);
}
.timeline > li { position: relative; margin: 0 0 14px; }
.timeline > li::before {
  content: ""; position: absolute; left: -21px; top: 18px; width: 12px; height: 12px;
  border-radius: 50%; background: var(--card); border: 3px solid var(--tone, var(--accent));
}
.step { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 14px 16px; }
.step-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 12px; }
.step-head h3 { font-size: 16px; }
.chip {
  font-size: 12px; padding: 1px 8px; border-radius: 6px; background: var(--tone-bg, var(--muted-bg));
  color: var(--tone, var(--ink-2)); font-weight: 600; white-space: nowrap;
}
.meta { color: var(--ink-2); font-size: 13px; font-variant-numeric: tabular-nums; white-space: nowrap; }
.meta b { color: var(--ink); font-weight: 600; }
.push { margin-left: auto; }
.bar { position: relative; height: 4px; border-radius: 2px; background: var(--muted-bg); margin: 10px 0 6px; }
.bar span { position: absolute; top: 0; bottom: 0; min-width: 3px; border-radius: 2px; background: var(--accent); opacity: .7; }

details { border: 1px solid var(--line); border-radius: 10px; margin-top: 8px; background: var(--card); }
details[open] { background: color-mix(in srgb, var(--code-bg) 55%, var(--card)); }
summary {
  cursor: pointer; padding: 7px 12px; display: flex; flex-wrap: wrap; align-items: center;
  gap: 4px 10px; list-style: none;
}
summary::-webkit-details-marker { display: none; }
summary::before { content: "▸"; color: var(--ink-2); width: 10px; transition: transform .15s; }
details[open] > summary::before { transform: rotate(90deg); }
summary .mark { font-weight: 700; color: var(--tone); }
summary code { font-weight: 600; }
summary .preview {
  flex: 1 1 160px; min-width: 0; color: var(--ink-2); font-family: var(--mono); font-size: 12.5px;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
}
details[open] > summary .preview { display: none; }
.call-id { color: var(--ink-2); font-size: 12px; }
.io { padding: 0 12px 12px; display: grid; gap: 6px; }
.io h4 { margin: 6px 0 0; font-size: 12.5px; color: var(--ink-2); font-weight: 600; }
pre {
  margin: 0; padding: 10px 12px; background: var(--code-bg); border: 1px solid var(--line);
  border-radius: 8px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 420px;
  overflow: auto; line-height: 1.55;
}
.empty { color: var(--ink-2); font-style: italic; }

.note {
  margin-top: 8px; padding: 8px 12px; border-radius: 10px; background: var(--tone-bg);
  border-left: 4px solid var(--tone); overflow-wrap: anywhere;
}
.note b { color: var(--tone); }
.note p { margin: 2px 0 0; }
.loose { background: var(--card); border: 1px dashed var(--line); border-radius: 12px; padding: 10px 14px; }

.end {
  margin-top: 22px; background: var(--card); border: 1px solid var(--line);
  border-left: 6px solid var(--tone); border-radius: 12px; padding: 16px 20px;
}
.end h2 { font-size: 18px; margin-bottom: 6px; }
.end dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 8px 0 0; }
.end dt { color: var(--ink-2); }
.end dd { margin: 0; overflow-wrap: anywhere; }
footer { margin-top: 28px; color: var(--ink-2); font-size: 12.5px; text-align: center; }

@media (max-width: 560px) {
  main { padding: 16px 12px 32px; }
  .hero { padding: 16px; }
  .hero h1 { font-size: 19px; }
  .timeline { padding-left: 16px; }
  .timeline::before { left: 4px; }
  .timeline > li::before { left: -17px; width: 10px; height: 10px; }
  .step { padding: 12px; }
  .stats { grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 8px; }
  .stat { padding: 8px 10px; }
  .stat dd { font-size: 17px; }
  .push { margin-left: 0; }
  .end dl { grid-template-columns: 1fr; gap: 0; }
  .end dd { margin-bottom: 6px; }
}
@media print {
  details { break-inside: avoid; }
  button { display: none; }
}
`;

/** Opens or closes every call at once; the only script of the page. */
export const REPORT_SCRIPT = `
for (const button of document.querySelectorAll("button[data-open]")) {
  button.addEventListener("click", () => {
    const open = button.dataset.open === "true";
    for (const details of document.querySelectorAll("details")) details.open = open;
  });
}
`;
