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
