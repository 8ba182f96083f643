import { DOMParser } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import {
  buildReport,
  findRegressions,
  formatTerminalReport,
  type Grades,
  hasHarnessError,
  renderHtmlReport,
  renderJunit,
  stopKindOf,
  type TaskResult,
} from "../src/index.ts";

const pass = { pass: true, detail: "好" };
const grades = (overrides: Partial<Grades> = {}): Grades => ({
  tests_pass: pass,
  diff_in_scope: pass,
  forbidden_untouched: pass,
  status: pass,
  ...overrides,
});
const row = (
  id: string,
  status: string,
  code: string,
  passed = status === "completed",
): TaskResult => ({
  id,
  passed,
  status,
  code,
  graders: grades(passed ? {} : { status: { pass: false, detail: "不对" } }),
  durationMs: 1234,
});

function parseXml(text: string) {
  const errors: string[] = [];
  const doc = new DOMParser({
    onError: (level, message) => {
      // U+FFFD is what the writer puts for characters XML cannot hold; xmldom warns about it.
      if (level === "warning" && message.includes("replacement character")) return;
      errors.push(`${level}: ${message}`);
    },
  }).parseFromString(text, "text/xml");
  return { doc, errors };
}

describe("buildReport with a classifier of its own", () => {
  it("counts each stop under the kind the given classifier names", () => {
    const results = [row("a", "completed", "finished"), row("b", "failed", "tool_error")];
    const seen: string[] = [];
    const report = buildReport({
      suite: "s",
      results,
      classify: (result) => {
        seen.push(result.id);
        return result.status === "completed" ? undefined : "harness";
      },
    });
    expect(seen).toEqual(["a", "b"]);
    expect(report.stops).toEqual({ capability: 0, safety: 0, harness: 1 });
  });
});

describe("stopKindOf", () => {
  it.each([
    ["completed", "finished", undefined],
    ["failed", "finish_rejected", "capability"],
    ["failed", "tool_error", "capability"],
    ["budget_exceeded", "max_steps", "capability"],
    ["blocked", "permission_denied", "safety"],
    ["error", "timeout", "harness"],
    ["error", "crash", "harness"],
  ])("puts %s/%s under %s", (status, code, kind) => {
    expect(stopKindOf({ status, code })).toBe(kind);
  });
});

describe("buildReport", () => {
  const results = [
    row("a", "completed", "finished"),
    row("b", "failed", "finish_rejected"),
    row("c", "blocked", "permission_denied"),
    row("d", "error", "timeout"),
    {
      ...row("e", "completed", "finished", false),
      graders: grades({ tests_pass: { pass: false, detail: "退出码 1" } }),
    },
  ];

  it("counts the pass rate and splits the stops", () => {
    const report = buildReport({ suite: "s", results });
    expect(report).toMatchObject({
      suite: "s",
      passed: 1,
      total: 5,
      passRate: 0.2,
      regressions: [],
    });
    expect(report.stops).toEqual({ capability: 1, safety: 1, harness: 1 });
    expect(hasHarnessError(report)).toBe(true);
    expect(hasHarnessError(buildReport({ suite: "s", results: results.slice(0, 3) }))).toBe(false);
  });

  const passedIn = (...ids: string[]) => ids.map((id) => ({ id, passed: true }));

  it("names every task that passed in the baseline and fails now", () => {
    const report = buildReport({
      suite: "s",
      results,
      baseline: [...passedIn("a", "b", "e", "gone"), { id: "c", passed: false }],
    });
    expect(report.regressions).toEqual(["b", "e"]);
    expect(formatTerminalReport(report)).toContain("回归（基线中通过、这次失败）：b, e");
  });

  it("matches tasks by id in the run's order: a new task or one that failed before is no regression, a timeout is", () => {
    // The baseline lists the tasks in another order, "c" failed there, "new" was not there.
    const baseline = [{ id: "c", passed: false }, ...passedIn("e", "a", "b")];
    const now = [
      row("new", "failed", "tool_error"),
      row("a", "completed", "finished"),
      row("b", "failed", "tool_error"),
      row("c", "failed", "tool_error"),
      row("e", "error", "timeout"),
    ];
    expect(findRegressions(baseline, now)).toEqual(["b", "e"]);
    expect(findRegressions([], now)).toEqual([]);
  });

  it("asks an injected findRegressions, given the baseline and the results as they are", () => {
    const baseline = passedIn("a");
    const seen: unknown[] = [];
    const report = buildReport({
      suite: "s",
      results,
      baseline,
      findRegressions: (given, now) => {
        seen.push(given, now);
        return ["z"];
      },
    });
    expect(seen).toEqual([baseline, results]);
    expect(report.regressions).toEqual(["z"]);
    // Without a baseline nothing is compared, whatever the function would say.
    expect(buildReport({ suite: "s", results, findRegressions: () => ["z"] }).regressions).toEqual(
      [],
    );
  });
});

describe("renderJunit", () => {
  it("writes a testcase per task, <failure> for a failed grader and <error> for a harness error", () => {
    const { doc, errors } = parseXml(
      renderJunit(
        buildReport({
          suite: "s",
          results: [
            row("a", "completed", "finished"),
            row("b", "failed", "tool_error"),
            row("d", "error", "timeout"),
          ],
        }),
      ),
    );
    expect(errors).toEqual([]);
    const cases = Array.from(doc.getElementsByTagName("testcase"));
    expect(cases.map((node) => node.getAttribute("name"))).toEqual(["a", "b", "d"]);
    expect(cases[0]?.childNodes.length).toBe(0);
    expect(cases[1]?.getElementsByTagName("failure")[0]?.textContent).toContain("status: 不对");
    expect(cases[2]?.getElementsByTagName("error")[0]?.getAttribute("type")).toBe("timeout");
    const suite = doc.getElementsByTagName("testsuite")[0];
    expect([
      suite?.getAttribute("tests"),
      suite?.getAttribute("failures"),
      suite?.getAttribute("errors"),
    ]).toEqual(["3", "1", "1"]);
    expect(cases[0]?.getAttribute("time")).toBe("1.234");
  });

  it("stays well-formed XML whatever a detail holds, and keeps the text", () => {
    const hostile = `]]></failure><script>"'&\u0000\u001b[31m\uD800 end`;
    const result = {
      ...row("x", "failed", "tool_error"),
      graders: grades({ tests_pass: { pass: false, detail: hostile } }),
      error: hostile,
    };
    const { doc, errors } = parseXml(
      renderJunit(buildReport({ suite: `<"s">`, results: [result] })),
    );
    expect(errors).toEqual([]);
    const failure = doc.getElementsByTagName("failure")[0];
    expect(failure?.textContent).toContain(`]]></failure><script>"'&`);
    expect(failure?.textContent).toContain("\uFFFD[31m\uFFFD end");
    expect(doc.getElementsByTagName("testsuite")[0]?.getAttribute("name")).toBe(`<"s">`);
  });
});

describe("renderHtmlReport", () => {
  it("shows a tool output holding <script> as text, in a page that fetches nothing", () => {
    const result = {
      ...row("<img src=x onerror=alert(1)>", "failed", "tool_error"),
      graders: grades({ tests_pass: { pass: false, detail: "</pre><script>alert(1)</script>" } }),
    };
    const page = renderHtmlReport(buildReport({ suite: "s", results: [result] }));
    expect(page).not.toMatch(/<script|<img|<link|<iframe|@import|url\(/i);
    expect(page).toContain("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});
