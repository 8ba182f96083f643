/**
 * The HTML report in a real browser: headless Chromium (the system's, driven by
 * playwright-core), the page opened from its file with every other request aborted.
 */
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTraceCommand } from "../src/report/trace-command.ts";
import { findChromium } from "./support/chromium.ts";
import { fixtureTraceLines, HOSTILE, writeRunTrace } from "./support/trace-fixture.ts";

const RUN_ID = "20261201-120000-b0b0b0";
let browser: Browser;
let dir: string;
let reportFile: string;

beforeAll(async () => {
  // Fails, never skips, when Chromium is missing: findChromium says what to install.
  browser = await chromium.launch({ executablePath: findChromium() });
  dir = await mkdtemp(join(tmpdir(), "trace-report-browser-"));
  const home = process.env.CODING_AGENT_HOME as string;
  await writeRunTrace(home, RUN_ID, await fixtureTraceLines({ runId: RUN_ID, cost: true }));
  reportFile = join(dir, "report.html");
  // `coding-agent trace <runId> --html <file>`, as the CLI runs it.
  const stderr: string[] = [];
  const code = await runTraceCommand(
    { kind: "trace", target: RUN_ID, html: reportFile, json: false },
    { stdout: () => {}, stderr: (text) => stderr.push(text) },
    process.env,
  );
  if (code !== 0) throw new Error(`coding-agent trace --html failed (${code}): ${stderr.join("")}`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** Opens the report with every request but the page's own file aborted and recorded. */
async function openReport(viewport = { width: 1100, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const requests: string[] = [];
  const aborted: string[] = [];
  const problems: string[] = [];
  context.on("request", (request) => requests.push(request.url()));
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url === pathToFileURL(reportFile).href) return route.continue();
    aborted.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  await page.goto(pathToFileURL(reportFile).href);
  return { context, page, requests, aborted, problems };
}

describe("the HTML report in Chromium", () => {
  it("shows every step, the status at a glance and the end", async () => {
    const { context, page } = await openReport();
    try {
      await expect.poll(() => page.locator("li[data-step]").allTextContents()).toHaveLength(4);
      const heads = await page.locator("li[data-step] h3").allTextContents();
      expect(heads).toEqual(["第 1 步", "第 2 步", "第 3 步", "第 4 步"]);
      const status = page.locator(".hero .status");
      expect(await status.getAttribute("data-status")).toBe("completed");
      expect(await status.textContent()).toContain("完成");
      expect(await page.locator("#end").textContent()).toContain("模型提出完成");
      expect(await page.locator(".stats").textContent()).toContain("$0.0129");
      expect(await page.locator("#step-3").textContent()).toContain("完成被拒");
    } finally {
      await context.close();
    }
  });

  it("keeps a tool output holding <script> as text: nothing runs, nothing is injected", async () => {
    const { context, page } = await openReport();
    try {
      const call = page.locator('details[data-call-id="call_1"]');
      await call.locator("summary").click();
      expect(await call.locator("pre.tool-output").isVisible()).toBe(true);
      const output = await call.locator("pre.tool-output").textContent();
      expect(output).toContain(HOSTILE.script);
      expect(output).toContain(HOSTILE.textarea);
      expect(output).toContain(HOSTILE.attribute.trim());
      expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
      await call.locator("pre.tool-output").hover();
      expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
      expect(await page.locator("#injected, img, link, textarea, iframe").count()).toBe(0);
      expect(await page.locator("script").count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("opens a tool call to show its input and output", async () => {
    const { context, page } = await openReport();
    try {
      const call = page.locator('details[data-call-id="call_2"]');
      expect(await call.locator("pre.tool-output").isVisible()).toBe(false);
      await call.locator("summary").click();
      expect(await call.locator("pre.tool-input").textContent()).toBe("{}");
      expect(await call.locator("pre.tool-output").textContent()).toContain("tests_failed");
      expect(await call.locator("pre.tool-output").isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("opens and closes every call at once (its own script runs under its policy)", async () => {
    const { context, page, problems } = await openReport();
    try {
      await page.getByRole("button", { name: "全部展开" }).click();
      expect(await page.locator("details:not([open])").count()).toBe(0);
      await page.getByRole("button", { name: "全部收起" }).click();
      expect(await page.locator("details[open]").count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("asks for nothing but its own file", async () => {
    const { context, page, requests, aborted, problems } = await openReport();
    try {
      await page.getByRole("button", { name: "全部展开" }).click();
      await page.waitForLoadState("load");
      expect(aborted).toEqual([]);
      expect(requests).toEqual([pathToFileURL(reportFile).href]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each([
    ["a wide window", 1100],
    ["a narrow window", 360],
  ])("fits %s without sideways scrolling, and its screenshot is taken", async (name, width) => {
    const { context, page } = await openReport({ width, height: 800 });
    try {
      await page.getByRole("button", { name: "全部展开" }).click();
      // An expression, not a function: this package is typed without the DOM library.
      const overflow = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      );
      expect(overflow, name).toBeLessThanOrEqual(0);
      const shot = join(dir, `report-${width}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      expect((await stat(shot)).size).toBeGreaterThan(10_000);
      expect((await readFile(shot)).subarray(1, 4).toString()).toBe("PNG");
    } finally {
      await context.close();
    }
  });
});
