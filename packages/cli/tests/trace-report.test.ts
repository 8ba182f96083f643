import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TraceReport } from "../src/report/report-model.ts";
import { formatTerminalReport } from "../src/report/terminal-report.ts";
import { parseTraceLines } from "../src/report/trace-lines.ts";
import { buildTraceReport } from "../src/report/trace-report.ts";
import { captureCli } from "./support/run-cli.ts";
import { spawnBin } from "./support/spawn-bin.ts";
import {
  FIXTURE_GOAL,
  fixtureTraceLines,
  HOSTILE,
  writeRunTrace,
} from "./support/trace-fixture.ts";

const home = () => process.env.CODING_AGENT_HOME as string;
let runs = 0;
const newRunId = () => {
  runs += 1;
  return `20261201-000000-r${String(runs).padStart(4, "0")}`;
};

/** The report of `lines` (as a trace file holds them, each ending in a newline). */
function reportOf(lines: readonly string[], tail = ""): TraceReport {
  const read = parseTraceLines(`${lines.map((line) => `${line}\n`).join("")}${tail}`);
  if (!read.ok) throw new Error(read.message);
  return buildTraceReport(read.events, read.warnings);
}

const event = (seq: number, type: string, body: Record<string, unknown> = {}, atMs = seq) =>
  JSON.stringify({ seq, atMs, runId: "r1", type, ...body });

describe("parseTraceLines", () => {
  it("drops a torn last line with a warning and keeps every line before it", async () => {
    const lines = await fixtureTraceLines({ runId: "r1" });
    for (const torn of ['{"seq":6,"atMs":3', '{"seq":6,"atMs":3\n', '{"seq":6,"atMs":3\n\n']) {
      const read = parseTraceLines(`${lines.slice(0, 5).join("\n")}\n${torn}`);
      expect(read.ok, JSON.stringify(torn)).toBe(true);
      expect(read.ok && read.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(read.ok && read.warnings).toEqual([expect.stringContaining("第 6 行不完整")]);
    }
  });

  it.each([
    [
      "a line that is not JSON",
      `${event(1, "run_started", { goal: "g", limits: {} })}\n{oops\n${event(3, "model_started", { step: 1 })}\n`,
      "第 2 行不是 JSON",
    ],
    [
      "a known event with a wrong field",
      `${event(1, "run_started", { goal: "g", limits: {} })}\n${event(2, "model_started", { step: "one" })}\n`,
      "第 2 行不是有效的 trace 事件：model_started：step",
    ],
    [
      "a line without runId",
      `${JSON.stringify({ seq: 1, atMs: 0, type: "run_started", goal: "g", limits: {} })}\n`,
      "第 1 行不是有效的 trace 事件：runId",
    ],
    [
      "a line of another run",
      `${event(1, "run_started", { goal: "g", limits: {} })}\n${JSON.stringify({ seq: 2, atMs: 1, runId: "r2", type: "model_started", step: 1 })}\n`,
      "第 2 行属于另一次运行",
    ],
    ["an empty file", "", "没有任何 trace 事件"],
  ])("refuses %s, naming the line", (_name, text, message) => {
    const read = parseTraceLines(text);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.message).toContain(message);
  });

  it("keeps an event type it does not know, with its fields", () => {
    const read = parseTraceLines(`${event(1, "future_event", { step: 2, note: "x" })}\n`);
    expect(read.ok && read.events[0]).toMatchObject({
      type: "unknown",
      originalType: "future_event",
      step: 2,
      raw: { note: "x" },
    });
  });

  it("warns about a gap in seq and still reads the events after it", () => {
    const read = parseTraceLines(
      `${event(1, "run_started", { goal: "g", limits: {} })}\n${event(3, "model_started", { step: 1 })}\n`,
    );
    expect(read.ok && read.events).toHaveLength(2);
    expect(read.ok && read.warnings).toEqual([expect.stringContaining("seq 应为 2，实际为 3")]);
  });
});

describe("buildTraceReport", () => {
  it("adds up each step's tokens and cost and the run's totals", async () => {
    const report = reportOf(await fixtureTraceLines({ runId: "r1", cost: true }));
    const steps = report.timeline.flatMap((item) => (item.kind === "step" ? [item.step] : []));
    expect(steps.map((s) => [s.step, s.inputTokens, s.outputTokens])).toEqual([
      [1, 1200, 40],
      [2, 1500, 30],
      [3, 1600, 20],
      [4, 1700, 25],
    ]);
    expect(steps[0]?.costUsd).toBeCloseTo((1200 * 2 + 40 * 8) / 1e6, 12);
    expect(report).toMatchObject({
      runId: "r1",
      goal: FIXTURE_GOAL,
      status: "completed",
      end: { status: "completed", code: "finished" },
      totals: {
        steps: 4,
        toolCalls: 2,
        toolErrors: 1,
        inputTokens: 6000,
        outputTokens: 115,
        rejections: 1,
      },
    });
    expect(report.totals.costUsd).toBeCloseTo((6000 * 2 + 115 * 8) / 1e6, 12);
  });

  it("pairs each tool call with its result, input and duration", async () => {
    const report = reportOf(await fixtureTraceLines({ runId: "r1" }));
    const calls = report.timeline.flatMap((item) =>
      item.kind === "step"
        ? item.step.entries.flatMap((e) => (e.kind === "tool" ? [e.call] : []))
        : [],
    );
    expect(calls).toMatchObject([
      {
        callId: "call_1",
        tool: "read_file",
        ok: true,
        input: '{"path":"src/sum.js"}',
        durationMs: 5,
      },
      { callId: "call_2", tool: "run_tests", ok: false, durationMs: 5 },
    ]);
    expect(calls[0]?.output).toContain(HOSTILE.script);
    expect(calls[1]?.output).toContain("tests_failed");
  });

  it("has no cost when the trace carries none, and an unknown one when a price was unknown", () => {
    const completed = (seq: number, step: number, costUsd?: number | null) =>
      event(seq, "model_completed", {
        step,
        ok: true,
        actionType: "tool_call",
        detail: "{}",
        usage: { inputTokens: 1, outputTokens: 1 },
        ...(costUsd === undefined ? {} : { costUsd }),
      });
    expect(reportOf([completed(1, 1), completed(2, 2)]).totals.costUsd).toBeUndefined();
    const mixed = reportOf([completed(1, 1, 0.5), completed(2, 2, null)]);
    expect(mixed.totals.costUsd).toBeNull();
    expect(mixed.timeline.map((item) => item.kind === "step" && item.step.costUsd)).toEqual([
      0.5,
      null,
    ]);
  });

  it("reports a trace without run_finished as unfinished, its open call without a result", () => {
    const report = reportOf([
      event(1, "run_started", { goal: "g", limits: { maxSteps: 3 } }),
      event(2, "model_started", { step: 1 }),
      event(3, "model_completed", { step: 1, ok: true, actionType: "tool_call", detail: "{}" }),
      event(4, "tool_started", { step: 1, callId: "call_1", tool: "run_command", input: "{}" }),
    ]);
    expect(report.status).toBe("unfinished");
    expect(report.end).toBeUndefined();
    const step = report.timeline[0];
    expect(step?.kind === "step" && step.step.entries[1]).toMatchObject({
      kind: "tool",
      call: { callId: "call_1", durationMs: null },
    });
    expect(step?.kind === "step" && step.step.entries[1]).not.toHaveProperty("call.ok");
  });

  it("adds the parts of a resumed run, each on its own clock", () => {
    const report = reportOf([
      event(1, "run_started", { goal: "g", limits: {} }, 0),
      event(2, "model_started", { step: 1 }, 10),
      event(3, "model_completed", { step: 1, ok: true, detail: "{}" }, 40),
      event(4, "resumed", { fromSeq: 3 }, 0),
      event(5, "model_started", { step: 2 }, 5),
      event(6, "model_completed", { step: 2, ok: true, detail: "{}" }, 25),
    ]);
    expect(report.totals.durationMs).toBe(40 + 25);
    expect(report.timeline.map((item) => item.kind)).toEqual(["step", "event", "step"]);
    expect(report.timeline[1]).toMatchObject({
      kind: "event",
      event: { type: "resumed", fields: { fromSeq: 3 } },
    });
  });

  it("places an unknown event in its step, or on the timeline when it names none", () => {
    const report = reportOf([
      event(1, "model_started", { step: 1 }),
      event(2, "future_step_event", { step: 1, x: 1 }),
      event(3, "future_run_event", { y: 2 }),
    ]);
    const first = report.timeline[0];
    expect(first?.kind === "step" && first.step.entries).toEqual([
      {
        kind: "event",
        event: { seq: 2, atMs: 2, type: "future_step_event", fields: { step: 1, x: 1 } },
      },
    ]);
    expect(report.timeline[1]).toMatchObject({
      kind: "event",
      event: { type: "future_run_event" },
    });
  });
});

describe("formatTerminalReport", () => {
  it("shows status, steps, tool calls, tokens, cost and rejections with Chinese labels", async () => {
    const text = formatTerminalReport(
      reportOf(await fixtureTraceLines({ runId: "r1", cost: true })),
      {
        color: false,
      },
    );
    for (const expected of [
      "Trace 报告 · 运行 r1",
      "状态  ✓ 完成（completed · finished）",
      "预算  maxSteps 10",
      "4 步 · 2 次工具调用（1 次出错）",
      "输入 6,000 token · 输出 115 token · 费用 $0.0129",
      "完成被拒 1 次",
      "第 1 步",
      "第 4 步",
      "✓ read_file  call_1  5 ms",
      "✗ run_tests  call_2  5 ms",
      "完成被拒：no_test_evidence",
    ]) {
      expect(text, expected).toContain(expected);
    }
  });

  it("shows — for a cost the trace does not have", async () => {
    const text = formatTerminalReport(reportOf(await fixtureTraceLines({ runId: "r1" })), {
      color: false,
    });
    expect(text).toContain("费用 —");
    expect(text).not.toContain("$");
  });

  /** A run whose goal, tool output and stop reason hold a screen clear and a bidi override. */
  const hostileRun = () =>
    reportOf([
      event(1, "run_started", { goal: `目标 ${HOSTILE.terminal}`, limits: {} }),
      event(2, "model_started", { step: 1 }),
      event(3, "model_completed", { step: 1, ok: true, actionType: "tool_call", detail: "{}" }),
      event(4, "tool_started", { step: 1, callId: "call_1", tool: "run_command", input: "{}" }),
      event(5, "tool_completed", {
        step: 1,
        callId: "call_1",
        tool: "run_command",
        ok: true,
        detail: HOSTILE.terminal,
      }),
      event(6, "run_finished", {
        status: "failed",
        code: "tool_error",
        reason: HOSTILE.terminal,
        steps: 1,
        toolCalls: 1,
        usage: { inputTokens: 0, outputTokens: 0 },
      }),
    ]);

  it("prints no escape sequence without colour, even from a tool output holding one", () => {
    const text = formatTerminalReport(hostileRun(), { color: false });
    expect(text).not.toContain("\u001b");
    expect(text).not.toContain("\u202e");
    // Three times: the goal, the tool output and the reason.
    expect(text.split("\\u{1b}[2J").length - 1).toBe(3);
    expect(text).toContain("\\u{202e}");
  });

  it("colours only its own labels: a tool's escape sequence stays visible text", () => {
    const text = formatTerminalReport(hostileRun(), { color: true });
    expect(text).toContain("\u001b[32m");
    expect(text).not.toContain("\u001b[2J");
    expect(text).not.toContain("\u202e");
    expect(text.split("\\u{1b}[2J").length - 1).toBe(3);
  });
});

describe("every field from the file is escaped", () => {
  it("an unknown status and action type, planted with escapes, reach the terminal as visible text", () => {
    const planted = "\u001b]0;owned\u0007\u001b[2J";
    const text = formatTerminalReport(
      reportOf([
        event(1, "run_started", { goal: "g", limits: {} }),
        event(2, "model_started", { step: 1 }),
        event(3, "model_completed", {
          step: 1,
          ok: true,
          actionType: planted,
          detail: "d",
          reasoning: planted,
        }),
        event(4, "run_finished", {
          status: planted,
          code: "x",
          reason: "r",
          steps: 1,
          toolCalls: 0,
          usage: { inputTokens: 0, outputTokens: 0 },
        }),
      ]),
      { color: true },
    );
    expect(text).not.toContain("\u001b]0;");
    expect(text).not.toContain("\u001b[2J");
    expect(text).not.toContain("\u0007");
    expect(text).toContain("\\u{1b}[2J");
  });
});

describe("coding-agent trace", () => {
  it("prints the report of a run named by its id", async () => {
    const runId = newRunId();
    await writeRunTrace(home(), runId, await fixtureTraceLines({ runId }));
    const { code, stdout, stderr } = await captureCli(["trace", runId]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain(`运行 ${runId}`);
    expect(stdout).toContain("完成被拒 1 次");
  });

  it("prints no colour from the real bin when stdout is not a terminal", async () => {
    const runId = newRunId();
    await writeRunTrace(home(), runId, await fixtureTraceLines({ runId }));
    const { code, stdout } = await spawnBin(["trace", runId]);
    expect(code).toBe(0);
    expect(stdout).toContain("状态  ✓ 完成");
    expect(stdout).not.toContain("\u001b");
  });

  it("reads a trace file or a run folder given by path", async () => {
    const runId = newRunId();
    const file = await writeRunTrace(home(), runId, await fixtureTraceLines({ runId }));
    for (const target of [file, join(home(), "runs", runId)]) {
      const { code, stdout } = await captureCli(["trace", target]);
      expect(code, target).toBe(0);
      expect(stdout, target).toContain(`运行 ${runId}`);
    }
  });

  it("prints the report's data with --json, an unknown price as null", async () => {
    const runId = newRunId();
    const lines = await fixtureTraceLines({ runId, cost: true });
    const last = JSON.parse(lines.at(-1) as string);
    lines[lines.length - 1] = JSON.stringify({ ...last, costUsd: null });
    await writeRunTrace(home(), runId, lines);
    const { code, result } = await captureCli(["trace", runId, "--json"]);
    expect(code).toBe(0);
    expect(result).toMatchObject({
      runId,
      status: "completed",
      totals: { steps: 4, costUsd: null },
    });
    expect(result.timeline).toHaveLength(4);
  });

  it("writes the HTML page with --html and still prints the report", async () => {
    const runId = newRunId();
    await writeRunTrace(home(), runId, await fixtureTraceLines({ runId }));
    const page = join(await mkdtemp(join(tmpdir(), "trace-html-")), "report.html");
    const { code, stdout, stderr } = await captureCli(["trace", runId, "--html", page]);
    expect(code).toBe(0);
    expect(stderr).toContain(`HTML 报告已写入 ${page}`);
    expect(stdout).toContain(`运行 ${runId}`);
    expect(await readFile(page, "utf8")).toMatch(/^<!doctype html>/);
  });

  it("reports the rest of a trace whose last line was torn, with the warning", async () => {
    const runId = newRunId();
    const file = await writeRunTrace(home(), runId, await fixtureTraceLines({ runId }));
    const { writeFile } = await import("node:fs/promises");
    await writeFile(file, `${await readFile(file, "utf8")}{"seq":99,"atMs":`);
    const { code, stdout } = await captureCli(["trace", runId]);
    expect(code).toBe(0);
    expect(stdout).toContain("第 4 步");
    expect(stdout).toContain("警告");
    expect(stdout).toContain("不完整（写入时中断）");
  });

  it("exits 2 naming the line when a line in the middle is broken", async () => {
    const runId = newRunId();
    const lines = await fixtureTraceLines({ runId });
    lines[2] = "{not json";
    const file = await writeRunTrace(home(), runId, lines);
    const { code, stdout, stderr } = await captureCli(["trace", runId]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`${file} 第 3 行不是 JSON`);
  });

  it("exits 2 naming where it looked when a run has no trace", async () => {
    const runId = newRunId();
    const dir = join(home(), "runs", runId);
    await mkdir(dir, { recursive: true });
    const noTrace = await captureCli(["trace", runId]);
    expect(noTrace.code).toBe(2);
    expect(noTrace.stderr).toContain(
      `运行 ${runId} 没有 trace：${join(dir, "trace.jsonl")} 不存在`,
    );
    const noRun = await captureCli(["trace", "20991231-000000-ffffff"]);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toContain(join(home(), "runs", "20991231-000000-ffffff"));
  });

  it("exits 1 when the page cannot be written", async () => {
    const runId = newRunId();
    await writeRunTrace(home(), runId, await fixtureTraceLines({ runId }));
    const page = join(home(), "no-such-folder", "report.html");
    const { code, stderr } = await captureCli(["trace", runId, "--html", page]);
    expect(code).toBe(1);
    expect(stderr).toContain(`写不了 HTML 报告 ${page}`);
  });

  it.each([
    ["no target", ["trace"], "用法：coding-agent trace"],
    ["two targets", ["trace", "a", "b"], "只接受一个"],
    ["--html without a file", ["trace", "a", "--html"], "--html 需要一个值"],
    ["an unknown flag", ["trace", "a", "--pdf"], "不认识的选项：--pdf"],
  ])("exits 2 on %s", async (_name, argv, message) => {
    const { code, stderr } = await captureCli(argv);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe("coding-agent trace with children (lesson 39)", () => {
  /** A finished run's trace lines with these usage and cost figures. */
  const finished = (
    runId: string,
    usage: { inputTokens: number; outputTokens: number },
    costUsd: number | null,
  ) => [
    JSON.stringify({ seq: 1, atMs: 0, runId, type: "run_started", goal: "g", limits: {} }),
    JSON.stringify({
      seq: 2,
      atMs: 5,
      runId,
      type: "run_finished",
      status: "completed",
      code: "finished",
      reason: "好了",
      steps: 1,
      toolCalls: 0,
      usage,
      costUsd,
    }),
  ];
  const childTrace = async (runId: string, index: number, lines: readonly string[]) => {
    const dir = join(home(), "runs", runId, "subagents", String(index));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "trace.jsonl"), lines.map((line) => `${line}\n`).join(""));
  };
  const traceJson = async (runId: string) => {
    const { code, stdout, stderr } = await captureCli(["trace", runId, "--json"]);
    expect(code, stderr).toBe(0);
    return { report: JSON.parse(stdout) as TraceReport, stderr };
  };

  it("adds each child's tokens and cost to the totals; one of unknown cost makes the cost unknown", async () => {
    const runId = newRunId();
    await writeRunTrace(
      home(),
      runId,
      finished(runId, { inputTokens: 100, outputTokens: 10 }, 0.5),
    );
    await childTrace(runId, 1, finished(`${runId}.1`, { inputTokens: 20, outputTokens: 2 }, 0.25));
    const known = await traceJson(runId);
    expect(known.report.totals).toMatchObject({
      inputTokens: 120,
      outputTokens: 12,
      costUsd: 0.75,
    });
    expect(known.report.subagents).toEqual({
      runs: 1,
      steps: 1,
      toolCalls: 0,
      inputTokens: 20,
      outputTokens: 2,
      costUsd: 0.25,
    });
    await childTrace(runId, 2, finished(`${runId}.2`, { inputTokens: 1, outputTokens: 1 }, null));
    const unknown = await traceJson(runId);
    expect(unknown.report.totals).toMatchObject({
      inputTokens: 121,
      outputTokens: 13,
      costUsd: null,
    });
    expect(unknown.report.subagents).toMatchObject({ runs: 2, costUsd: null });
  });

  it("leaves a broken child trace out with a warning naming it, its cost unknown", async () => {
    const runId = newRunId();
    await writeRunTrace(
      home(),
      runId,
      finished(runId, { inputTokens: 100, outputTokens: 10 }, 0.5),
    );
    await childTrace(runId, 1, [
      "{oops",
      ...finished(`${runId}.1`, { inputTokens: 9, outputTokens: 9 }, 9),
    ]);
    const { report, stderr } = await traceJson(runId);
    expect(report.totals).toMatchObject({ inputTokens: 100, outputTokens: 10, costUsd: null });
    expect(report.warnings).toEqual([expect.stringContaining("子 Agent #1 的 trace 没有计入")]);
    expect(stderr).toContain("子 Agent #1 的 trace 没有计入");
  });

  it("a run without children has no subagents part and its own totals", async () => {
    const runId = newRunId();
    await writeRunTrace(
      home(),
      runId,
      finished(runId, { inputTokens: 100, outputTokens: 10 }, 0.5),
    );
    // A folder that is no child's (not a number) is not read.
    await mkdir(join(home(), "runs", runId, "subagents", "notes"), { recursive: true });
    const { report } = await traceJson(runId);
    expect(report.subagents).toBeUndefined();
    expect(report.totals).toMatchObject({ inputTokens: 100, outputTokens: 10, costUsd: 0.5 });
  });
});
