import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { escapeHtml, html, SafeHtml } from "../src/report/html-escape.ts";
import { renderHtmlReport } from "../src/report/html-report.ts";
import { parseTraceLines } from "../src/report/trace-lines.ts";
import { buildTraceReport } from "../src/report/trace-report.ts";
import { fixtureTraceLines, HOSTILE } from "./support/trace-fixture.ts";

async function page(options: { readonly cost?: boolean; readonly extra?: readonly string[] } = {}) {
  const lines = [...(await fixtureTraceLines({ runId: "r1", cost: options.cost ?? false }))];
  lines.push(...(options.extra ?? []));
  const read = parseTraceLines(`${lines.join("\n")}\n`);
  if (!read.ok) throw new Error(read.message);
  return renderHtmlReport(buildTraceReport(read.events, read.warnings));
}

describe("escapeHtml", () => {
  it.each([
    ["<", "&lt;"],
    [">", "&gt;"],
    ['"', "&quot;"],
    ["'", "&#39;"],
    ["&", "&amp;"],
    ["&lt;", "&amp;lt;"],
    ["中文 text", "中文 text"],
  ])("escapes %s as %s", (text, escaped) => {
    expect(escapeHtml(text)).toBe(escaped);
  });
});

describe("html", () => {
  it("escapes every value and keeps the template's own markup", () => {
    expect(html`<p title="${'"x'}">${"<b>"}</p>`.toString()).toBe(
      '<p title="&quot;x">&lt;b&gt;</p>',
    );
  });

  it("keeps nested markup, joins lists and prints nothing for false, null and undefined", () => {
    const items = ["<a>", "b"].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${false}${null}${undefined}${0}`.toString()).toBe(
      "<ul><li>&lt;a&gt;</li><li>b</li></ul>0",
    );
  });

  it("trusts a string only when it is marked SafeHtml", () => {
    expect(html`${"<i>"}${SafeHtml.trusted("<i>")}`.toString()).toBe("&lt;i&gt;<i>");
  });
});

describe("renderHtmlReport", () => {
  it("holds every hostile tool output as escaped text", async () => {
    const text = await page();
    expect(text).toContain(escapeHtml(HOSTILE.script));
    expect(text).toContain(escapeHtml(HOSTILE.textarea));
    expect(text).toContain(escapeHtml(HOSTILE.attribute));
    for (const hostile of Object.values(HOSTILE)) {
      expect(text, hostile).not.toContain(hostile);
    }
  });

  it("has exactly its own script, whose hash its policy names", async () => {
    const text = await page();
    const scripts = [...text.matchAll(/<script>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(text.match(/<script/g)).toHaveLength(1);
    const hash = createHash("sha256")
      .update(scripts[0]?.[1] ?? "")
      .digest("base64");
    const attribute =
      /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(text)?.[1] ?? "";
    const policy = attribute.replaceAll("&#39;", "'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`script-src 'sha256-${hash}'`);
  });

  it("names nothing to load: no tag with src or href, no stylesheet link", async () => {
    const text = await page();
    // Escaped text holds no "<", so this finds the page's real tags only.
    const tags = text.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.length).toBeGreaterThan(50);
    expect(tags.filter((tag) => /\s(src|href|srcset|action|poster)\s*=/i.test(tag))).toEqual([]);
    expect(tags.filter((tag) => /^<(link|img|iframe|object|embed)\b/i.test(tag))).toEqual([]);
    expect(text).not.toMatch(/@import|url\(/i);
  });

  it("shows — for an absent cost and the sum when the trace has costs", async () => {
    expect(await page()).toMatch(/<dt>费用<\/dt><dd>—<\/dd>/);
    expect(await page({ cost: true })).toMatch(/<dt>费用<\/dt><dd>\$0\.0129<\/dd>/);
  });

  it("shows an event type it does not know, its fields escaped", async () => {
    const unknown = JSON.stringify({
      seq: 99,
      atMs: 100,
      runId: "r1",
      type: "future<event>",
      note: HOSTILE.script,
    });
    const text = await page({ extra: [unknown] });
    expect(text).toContain('data-event-type="future&lt;event&gt;"');
    expect(text).toContain("未知事件");
    expect(text).not.toContain(HOSTILE.script);
  });

  it("shows the multi-line texts of a JSON result line by line, escaped", () => {
    const line = (seq: number, type: string, body: Record<string, unknown>) =>
      JSON.stringify({ seq, atMs: seq, runId: "r1", type, ...body });
    const detail = JSON.stringify({
      content: "第一行\n<script>x()</script>",
      hash: "h",
      totalLines: 2,
    });
    const read = parseTraceLines(
      [
        line(1, "tool_started", { step: 1, callId: "call_1", tool: "read_file", input: "{}" }),
        line(2, "tool_completed", {
          step: 1,
          callId: "call_1",
          tool: "read_file",
          ok: true,
          detail,
        }),
      ].join("\n"),
    );
    if (!read.ok) throw new Error(read.message);
    const text = renderHtmlReport(buildTraceReport(read.events));
    expect(text).toContain('<pre class="tool-text">第一行\n&lt;script&gt;x()&lt;/script&gt;</pre>');
    expect(text.match(/class="tool-text"/g), "only content has line breaks").toHaveLength(1);
  });

  it("is Chinese with a CJK font stack and fits a narrow screen", async () => {
    const text = await page();
    expect(text).toContain('<html lang="zh-CN">');
    expect(text).toContain('"Noto Sans CJK SC", "Noto Sans SC", "PingFang SC"');
    expect(text).toContain('"Microsoft YaHei"');
    expect(text).toContain('name="viewport" content="width=device-width, initial-scale=1"');
  });
});
