import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { beforeAll, describe, expect, it } from "vitest";
import { runWeek06 } from "../src/run-week-06.ts";
import {
  HOSTILE_TEXT,
  judgeWeek06,
  PLANTED_SECRET,
  WEEK_06_SUMMARY,
  type Week06Run,
} from "../src/week-06.ts";

const EVIDENCE = [
  "trace:20 events,seq 1..20,one runId,checkTrace ok,secret masked",
  "cost:5 steps,$0.02475 = Σ model_completed.costUsd",
  "otel:invoke_agent→5 chat,4 execute_tool (run_tests/edit_file/echo),all children",
  "cost:max_cost after 3 steps,$0.01440 ≥ $0.01,exit 3",
  "replay:finished exit 0, max_cost exit 3 = original (status, code, steps, toolCalls, messages)",
  "report:html self-contained,<script> shown as text,secret masked",
];

let real: Week06Run;
beforeAll(async () => {
  real = await runWeek06();
});

/** Why the verdict refused `run` ("" when it passed). */
const reasonOf = (run: Week06Run) => {
  const verdict = judgeWeek06(run);
  return verdict.ok ? "" : verdict.reason;
};
const lines = (text: string) => text.split("\n").slice(0, -1);
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
/** The trace with `edit` applied to its parsed lines. */
const traceWith = (edit: (events: Record<string, unknown>[]) => Record<string, unknown>[]) =>
  `${edit(lines(real.traceText).map(json))
    .map((event) => JSON.stringify(event))
    .join("\n")}\n`;
/** A `--json` result with `edit` applied. */
const resultWith = (stdout: string, edit: (result: Record<string, unknown>) => void) => {
  const result = json(stdout);
  edit(result);
  return JSON.stringify(result);
};

describe("judgeWeek06", () => {
  it("passes the real checkpoint runs and prints exactly the two expected lines", () => {
    const verdict = judgeWeek06(real);
    expect(verdict).toEqual({ week: 6, ok: true, summary: WEEK_06_SUMMARY, evidence: EVIDENCE });
    expect(formatVerdict(verdict)).toEqual([
      `第 6 周检查点通过：${WEEK_06_SUMMARY}`,
      JSON.stringify({ week: 6, ok: true, summary: WEEK_06_SUMMARY, evidence: EVIDENCE }),
    ]);
  });

  describe("refuses a trace", () => {
    it("with a line missing (a gap in seq)", () => {
      const traceText = traceWith((events) => events.filter((_, index) => index !== 4));
      expect(reasonOf({ ...real, traceText })).toMatch(/第 5 行的 seq 是 6，应为 5/);
    });

    it("with a tool's completion removed and the rest renumbered", () => {
      const traceText = traceWith((events) =>
        events
          .filter((event, index) => !(event.type === "tool_completed" && index < 8))
          .map((event, index) => ({ ...event, seq: index + 1 })),
      );
      expect(reasonOf({ ...real, traceText })).toMatch(/^trace 不成立/);
    });

    it("with a line of another run", () => {
      const traceText = traceWith((events) =>
        events.map((event, index) => (index === 3 ? { ...event, runId: "other" } : event)),
      );
      expect(reasonOf({ ...real, traceText })).toMatch(/1 行的 runId 不是/);
    });

    it("whose last line was torn", () => {
      expect(reasonOf({ ...real, traceText: real.traceText.slice(0, -1) })).toMatch(/写了一半/);
    });

    it("holding the planted key", () => {
      const traceText = `${real.traceText.slice(0, -2)},"leak":"${PLANTED_SECRET}"}\n`;
      expect(reasonOf({ ...real, traceText })).toMatch(/没有脱敏的密钥/);
    });

    it("whose step costs do not add up to the result's costUsd", () => {
      const traced = {
        ...real.traced,
        stdout: resultWith(real.traced.stdout, (result) => {
          result.costUsd = 0.03;
        }),
      };
      expect(reasonOf({ ...real, traced })).toMatch(/不等于各步 costUsd 之和/);
    });
  });

  describe("refuses the OpenTelemetry export", () => {
    it("when no span arrived", () => {
      expect(reasonOf({ ...real, otlpBodies: [] })).toMatch(
        /应有 1 个 invoke_agent span，收到 0 个/,
      );
    });

    it("when the model and tool spans are not children of the run's span", () => {
      const otlpBodies = real.otlpBodies.map((body) =>
        JSON.stringify(json(body), (key, value) =>
          key === "parentSpanId" && value !== "" ? "beefbeefbeefbeef" : value,
        ),
      );
      expect(otlpBodies).not.toEqual(real.otlpBodies);
      expect(reasonOf({ ...real, otlpBodies })).toMatch(
        /^chat .*execute_tool edit_file.* 不是 invoke_agent 的子 span/,
      );
    });

    it("with a torn request body", () => {
      const otlpBodies = real.otlpBodies.map((body, index) =>
        index === 0 ? body.slice(0, body.length / 2) : body,
      );
      expect(reasonOf({ ...real, otlpBodies })).toBe("OTLP 收集器收到的请求不是 OTLP/JSON");
    });

    it("holding the planted key", () => {
      const otlpBodies = [...real.otlpBodies, `{"resourceSpans":[],"leak":"${PLANTED_SECRET}"}`];
      expect(reasonOf({ ...real, otlpBodies })).toMatch(/OTLP 导出里出现了没有脱敏的密钥/);
    });
  });

  describe("refuses a replay", () => {
    it("whose messages differ from the original's", () => {
      const replayed = {
        ...real.replayed,
        stdout: resultWith(real.replayed.stdout, (result) => {
          result.messages = (result.messages as unknown[]).slice(1);
        }),
      };
      expect(reasonOf({ ...real, replayed })).toMatch(
        /带 trace 的运行的重放与原运行的 messages 不同/,
      );
    });

    it("that exits otherwise than the original", () => {
      const costReplayed = { ...real.costReplayed, exitCode: 0 };
      expect(reasonOf({ ...real, costReplayed })).toMatch(/重放退出码 0，原来是 3/);
    });
  });

  it("refuses a cost budget that did not stop the run", () => {
    const costStop = {
      ...real.costStop,
      exitCode: 0,
      stdout: resultWith(real.costStop.stdout, (result) => {
        result.status = "completed";
        result.code = "finished";
      }),
    };
    expect(
      reasonOf({ ...real, costStop, costReplayed: { ...real.costReplayed, exitCode: 0 } }),
    ).toMatch(/成本预算应以 budget_exceeded \/ max_cost 停下/);
  });

  describe("refuses a report", () => {
    it("that put the tool's <script> into the page", () => {
      const page = real.page.replace("&lt;script&gt;window.__pwned=1&lt;/script&gt;", HOSTILE_TEXT);
      expect(reasonOf({ ...real, page })).toMatch(/原样放进了页面/);
    });

    it("that loads anything from the network", () => {
      const page = real.page.replace("</body>", '<img src="https://example.com/x.png"></body>');
      expect(page).not.toBe(real.page);
      expect(reasonOf({ ...real, page })).toMatch(/从网络加载/);
    });

    it("that the trace command failed to write", () => {
      expect(reasonOf({ ...real, report: { ...real.report, exitCode: 1 } })).toMatch(/退出码 1/);
    });
  });
});
