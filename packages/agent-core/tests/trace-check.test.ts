import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import type { RunExtension } from "../src/extension.ts";
import type { Provider } from "../src/provider.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { checkTrace } from "../src/trace-check.ts";
import { HttpError, sequence } from "./fixtures/failing-providers.ts";

const turns = (...actions: unknown[]) =>
  createScriptedProvider(actions.map((action) => ({ action })));
const echo = (text: string) => ({ type: "tool_call", tool: "echo", input: { text } });
const finish = { type: "finish", summary: "ok" };
const tools: ToolSet = {
  echo: { execute: (input) => input.text },
  broken: {
    execute: () => {
      throw new Error("boom");
    },
  },
};

async function traceOf(
  provider: Provider,
  options: Parameters<typeof runAgent>[5] = {},
  signal?: AbortSignal,
) {
  const events: TraceEvent[] = [];
  await runAgent("任务", provider, tools, { maxSteps: 4 }, signal, {
    ...options,
    trace: (event) => void events.push(event),
  });
  return events;
}

const rejectOnce: RunExtension = {
  name: "reject-once",
  onFinish: (() => {
    let asked = 0;
    return () => {
      asked += 1;
      return asked === 1
        ? { kind: "reject", reasons: ["no_test_evidence"], message: "先跑测试" }
        : undefined;
    };
  })(),
};

describe("checkTrace on the loop's own traces", () => {
  it.each<[string, () => Promise<TraceEvent[]>]>([
    ["a tool round and a finish", () => traceOf(turns(echo("a"), finish))],
    [
      "a reply of two calls",
      () =>
        traceOf(createScriptedProvider([{ actions: [echo("a"), echo("b")] }, { action: finish }])),
    ],
    ["a tool that throws", () => traceOf(turns({ type: "tool_call", tool: "broken", input: {} }))],
    ["an unknown tool", () => traceOf(turns({ type: "tool_call", tool: "nope", input: {} }))],
    ["an invalid reply", () => traceOf(turns({ type: "dance" }))],
    [
      "the step budget",
      () => traceOf(turns(echo("1"), echo("2"), echo("3"), echo("4"), echo("5"))),
    ],
    ["a rejected finish", () => traceOf(turns(finish, finish), { extensions: [rejectOnce] })],
    [
      "model retries",
      () =>
        traceOf(sequence(new HttpError("HTTP 503", 503), { action: finish }).provider, {
          retry: {
            policy: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
            sleep: async () => {},
          },
        }),
    ],
    [
      "a cancel before the first call",
      () => {
        const controller = new AbortController();
        controller.abort();
        return traceOf(turns(finish), {}, controller.signal);
      },
    ],
    [
      "a required trace that fails on tool_started",
      () =>
        traceOf(turns(echo("a"), finish), {
          requiredTrace: (event) => {
            if (event.type === "tool_started") throw new Error("ENOSPC");
          },
        }),
    ],
    [
      "a required trace that fails on model_started",
      () =>
        traceOf(turns(echo("a"), finish), {
          requiredTrace: (event) => {
            if (event.type === "model_started") throw new Error("ENOSPC");
          },
        }),
    ],
  ])("accepts %s", async (_, trace) => {
    const events = await trace();
    expect(checkTrace(events)).toEqual({ ok: true, events: events.length });
  });
});

describe("checkTrace on broken traces", () => {
  const good = () => traceOf(turns(echo("a"), finish));
  const renumber = (events: TraceEvent[]) =>
    events.map((event, index) => ({ ...event, seq: index + 1 }));

  it.each<[string, (events: TraceEvent[]) => TraceEvent[], string, number]>([
    ["a lost event", (events) => events.filter((event) => event.seq !== 3), "seq_gap", 4],
    ["a doubled event", (events) => [...events.slice(0, 3), ...events.slice(2)], "seq_gap", 3],
    [
      "two events swapped",
      (events) => [events[0], events[2], events[1], ...events.slice(3)] as TraceEvent[],
      "seq_gap",
      3,
    ],
    [
      "a time that goes back",
      (events) => events.map((event) => (event.seq === 5 ? { ...event, atMs: -1 } : event)),
      "time_backwards",
      5,
    ],
    ["no run_started", (events) => renumber(events.slice(1)), "not_started", 1],
    [
      "an event after run_finished",
      (events) => renumber([...events, { ...(events[1] as TraceEvent), atMs: 1e9 }]),
      "after_finish",
      9,
    ],
    [
      "a tool_completed without its start",
      (events) => renumber(events.filter((event) => event.type !== "tool_started")),
      "unmatched",
      4,
    ],
    [
      "a tool call left open",
      (events) => renumber(events.filter((event) => event.type !== "tool_completed")),
      "left_open",
      5,
    ],
    [
      "a model_completed of another step",
      (events) =>
        events.map((event) =>
          event.seq === 3 && event.type === "model_completed" ? { ...event, step: 9 } : event,
        ),
      "unmatched",
      3,
    ],
    ["a torn end", (events) => events.slice(0, -1), "unfinished", 7],
  ])("finds %s", async (_, tamper, problem, seq) => {
    const events = await good();
    const verdict = checkTrace(tamper(events));
    expect(events).toHaveLength(8);
    expect(verdict).toMatchObject({ ok: false, problem, seq });
  });

  it("calls an empty trace unfinished", () => {
    expect(checkTrace([])).toMatchObject({ ok: false, problem: "unfinished", seq: 0 });
  });

  it("accepts a resumed part after a crash, and wants run_started right after resumed", async () => {
    const first = await good();
    const crashed = first.slice(0, 4); // up to tool_started: a crash mid-tool
    const second = await good();
    const joined = [
      ...crashed,
      { type: "resumed", fromSeq: 4, steps: 1, seq: 5, atMs: 100 } as TraceEvent,
      ...second.map((event) => ({ ...event, seq: event.seq + 5, atMs: event.atMs + 100 })),
    ];
    expect(checkTrace(joined)).toEqual({ ok: true, events: joined.length });
    const noStart = renumber(joined.filter((_event, index) => index !== 5));
    expect(checkTrace(noStart)).toMatchObject({ ok: false, problem: "not_started", seq: 6 });
  });
});

describe("checkTrace names what is wrong", () => {
  const good = () => traceOf(turns(echo("a"), finish));
  const renumber = (events: readonly TraceEvent[]) =>
    events.map((event, index) => ({ ...event, seq: index + 1 })) as TraceEvent[];
  const at = (events: readonly TraceEvent[], seq: number) => events[seq - 1] as TraceEvent;
  // The good trace: 1 run_started, 2 model_started, 3 model_completed, 4 tool_started,
  // 5 tool_completed, 6 model_started, 7 model_completed, 8 run_finished.

  it.each<[string, (events: TraceEvent[]) => TraceEvent[], string]>([
    [
      "a lost event",
      (events) => events.filter((event) => event.seq !== 3),
      "第 4 个事件（tool_started）：seq 应为 3",
    ],
    [
      "no run_started",
      (events) => renumber(events.slice(1)),
      "第 1 个事件（model_started）：应先有 run_started",
    ],
    [
      "a second run_started",
      (events) => renumber([at(events, 1), ...events]),
      "第 2 个事件（run_started）：一次运行只能有一个 run_started",
    ],
    [
      "an event after run_finished",
      (events) => renumber([...events, { ...at(events, 2), atMs: 1e9 }]),
      "第 9 个事件（model_started）：run_finished 之后不应再有事件",
    ],
    [
      "a model call started while one is open",
      (events) => renumber(events.filter((event) => event.seq !== 3)),
      "第 5 个事件（model_started）：第 1 步的模型调用还没有结束",
    ],
    [
      "a model call started while a tool runs",
      (events) => renumber(events.filter((event) => event.seq !== 5)),
      "第 5 个事件（model_started）：工具调用 call_1 没有结束",
    ],
    [
      "a retry with no model call under way",
      (events) =>
        renumber([
          ...events.slice(0, 3),
          {
            ...at(events, 3),
            type: "model_retry",
            step: 1,
            attempt: 1,
            failureClass: "retryable",
            delayMs: 0,
            detail: "",
          } as unknown as TraceEvent,
          ...events.slice(3),
        ]),
      "第 4 个事件（model_retry）：第 1 步没有进行中的模型调用",
    ],
    [
      "a tool started twice",
      (events) => renumber([...events.slice(0, 4), at(events, 4), ...events.slice(4)]),
      "第 5 个事件（tool_started）：调用 call_1 已经开始过",
    ],
    [
      "a tool_completed without its start",
      (events) => renumber(events.filter((event) => event.type !== "tool_started")),
      "第 4 个事件（tool_completed）：调用 call_1 没有对应的 tool_started",
    ],
    [
      "a model_completed of another step",
      (events) =>
        events.map((event) => (event.seq === 3 ? { ...event, step: 9 } : event)) as TraceEvent[],
      "第 3 个事件（model_completed）：第 9 步没有对应的 model_started",
    ],
    [
      "a run finished during a model call",
      (events) => renumber(events.filter((event) => event.seq !== 7)),
      "第 7 个事件（run_finished）：第 2 步的模型调用没有结束",
    ],
    [
      "a run finished during a model call and a tool call",
      (events) => renumber([at(events, 1), at(events, 2), at(events, 4), at(events, 8)]),
      "第 4 个事件（run_finished）：第 1 步的模型调用、工具调用 call_1没有结束",
    ],
    [
      "a torn end",
      (events) => events.slice(0, -1),
      "第 7 个事件（model_completed）：轨迹在 run_finished 之前就结束了",
    ],
  ])("in %s", async (_, tamper, message) => {
    const verdict = checkTrace(tamper(await good()));
    expect(verdict.ok ? "" : verdict.message).toBe(message);
  });

  it("in a time that goes back, naming both times", async () => {
    const events = await good();
    const back = events.map((event) => (event.seq === 5 ? { ...event, atMs: -1 } : event));
    expect(checkTrace(back)).toEqual({
      ok: false,
      problem: "time_backwards",
      seq: 5,
      message: `第 5 个事件（tool_completed）：atMs -1 早于前一个事件的 ${at(events, 4).atMs}`,
    });
  });

  it("in an empty trace", () => {
    expect(checkTrace([])).toEqual({
      ok: false,
      problem: "unfinished",
      seq: 0,
      message: "轨迹是空的",
    });
  });

  it("but takes events at the same time, and compactions and rejections in between", async () => {
    const events = (await good()).map((event) => ({ ...event, atMs: 0 }));
    const between = [
      {
        atMs: 0,
        type: "compacted",
        step: 1,
        estimatedTokens: 9,
        compactedTokens: 5,
        maxContextTokens: 6,
        results: [],
        totalCompacted: 0,
      },
      {
        atMs: 0,
        type: "finish_rejected",
        step: 1,
        reasons: ["no_test_evidence"],
        detail: "先跑测试",
      },
    ] as unknown as TraceEvent[];
    const mixed = renumber([...events.slice(0, 3), ...between, ...events.slice(3)]);
    expect(checkTrace(mixed)).toEqual({ ok: true, events: 10 });
  });
});
