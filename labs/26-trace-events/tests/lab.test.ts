import { runAgent, type ToolSet, type TraceEvent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { checkTrace } from "@lab";
import { describe, expect, it } from "vitest";

const turns = (...actions: unknown[]) =>
  createScriptedProvider(actions.map((action) => ({ action })));
const read = (path: string) => ({ type: "tool_call", tool: "read_file", input: { path } });
const finish = { type: "finish", summary: "看完了" };
const tools: ToolSet = {
  read_file: { execute: (input) => `内容：${String(input.path)}` },
  broken: {
    execute: () => {
      throw new Error("磁盘坏了");
    },
  },
};

/** A real run of the loop; `sink` decides what of each event reaches the list. */
async function traceOf(
  provider: ReturnType<typeof turns>,
  options: { readonly signal?: AbortSignal; readonly keep?: (event: TraceEvent) => boolean } = {},
) {
  const events: TraceEvent[] = [];
  await runAgent("看看 a.txt 和 b.txt", provider, tools, { maxSteps: 5 }, options.signal, {
    trace: (event) => {
      if (options.keep?.(event) ?? true) events.push(event);
    },
  });
  return events;
}

/** The trace of one tool round and a finish: 8 events, seq 1…8. */
const oneRound = () => traceOf(turns(read("a.txt"), finish));
const renumber = (events: readonly TraceEvent[]) =>
  events.map((event, index) => ({ ...event, seq: index + 1 }));

describe("checkTrace", () => {
  it("accepts the trace of a tool round and a finish", async () => {
    const events = await oneRound();
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "model_started",
      "model_completed",
      "tool_started",
      "tool_completed",
      "model_started",
      "model_completed",
      "run_finished",
    ]);
    expect(checkTrace(events), "循环自己写出的轨迹应当完整").toEqual({ ok: true, events: 8 });
  });

  it("finds a lost event at the seq right after the gap", async () => {
    const events = (await oneRound()).filter((event) => event.seq !== 4);
    expect(checkTrace(events), "丢了 seq 4（tool_started）").toEqual({
      ok: false,
      problem: "seq_gap",
      seq: 5,
    });
  });

  it("finds a doubled event and two swapped ones", async () => {
    const events = await oneRound();
    const doubled = [...events.slice(0, 3), ...events.slice(2)];
    expect(checkTrace(doubled), "seq 3 出现了两次").toEqual({
      ok: false,
      problem: "seq_gap",
      seq: 3,
    });
    const swapped = [events[0], events[2], events[1], ...events.slice(3)] as TraceEvent[];
    expect(checkTrace(swapped), "seq 2 和 3 换了位置").toEqual({
      ok: false,
      problem: "seq_gap",
      seq: 3,
    });
  });

  it("finds a time that goes back", async () => {
    const events = (await oneRound()).map((event) =>
      event.seq === 6 ? { ...event, atMs: -1 } : event,
    );
    expect(checkTrace(events), "seq 6 的 atMs 比前一个早").toEqual({
      ok: false,
      problem: "time_backwards",
      seq: 6,
    });
  });

  it("wants run_started first and nothing after run_finished", async () => {
    const events = await oneRound();
    expect(checkTrace(renumber(events.slice(1))), "缺了开头的 run_started").toEqual({
      ok: false,
      problem: "not_started",
      seq: 1,
    });
    const late = { ...(events[4] as TraceEvent), atMs: 1e9 };
    expect(checkTrace(renumber([...events, late])), "run_finished 之后又来了一个事件").toEqual({
      ok: false,
      problem: "after_finish",
      seq: 9,
    });
  });

  it("pairs every tool_completed with the tool_started of its callId", async () => {
    const events = await oneRound();
    const noStart = renumber(events.filter((event) => event.type !== "tool_started"));
    expect(checkTrace(noStart), "tool_completed 之前没有 tool_started").toEqual({
      ok: false,
      problem: "unmatched",
      seq: 4,
    });
    const otherCall = events.map((event) =>
      event.type === "tool_completed" ? { ...event, callId: "call_9" } : event,
    );
    expect(checkTrace(otherCall), "tool_completed 的 callId 对不上").toEqual({
      ok: false,
      problem: "unmatched",
      seq: 5,
    });
  });

  it("keeps apart the calls of one reply that overlap, by callId", async () => {
    const events = await traceOf(
      createScriptedProvider([{ actions: [read("a.txt"), read("b.txt")] }, { action: finish }]),
    );
    // 两个调用同时进行（第 39 课的子 Agent 就是这样）：两个都开始了，才先后完成。
    const starts = events.filter((event) => event.type === "tool_started");
    const rest = events.filter((event) => event.type !== "tool_started");
    const firstDone = rest.findIndex((event) => event.type === "tool_completed");
    const overlapping = renumber([
      ...rest.slice(0, firstDone),
      ...starts,
      ...rest.slice(firstDone),
    ]).map((event) => ({ ...event, atMs: 0 }));
    expect(
      overlapping.map((event) => event.type).slice(3, 7),
      "先是两个 tool_started，再是两个 tool_completed",
    ).toEqual(["tool_started", "tool_started", "tool_completed", "tool_completed"]);
    expect(checkTrace(overlapping), "交错的两个调用各自配上了自己的开始").toEqual({
      ok: true,
      events: events.length,
    });
  });

  it("pairs every model_completed with the model_started of its step", async () => {
    const events = await oneRound();
    const otherStep = events.map((event) =>
      event.seq === 3 && event.type === "model_completed" ? { ...event, step: 2 } : event,
    );
    expect(checkTrace(otherStep), "第 1 步开始，却是第 2 步完成").toEqual({
      ok: false,
      problem: "unmatched",
      seq: 3,
    });
  });

  it("calls a trace without run_finished unfinished, an empty one too", async () => {
    const events = await oneRound();
    expect(checkTrace(events.slice(0, 5)), "运行到一半，轨迹就断了").toEqual({
      ok: false,
      problem: "unfinished",
      seq: 5,
    });
    expect(checkTrace([]), "空轨迹").toEqual({ ok: false, problem: "unfinished", seq: 0 });
  });
});

describe("checkTrace inside runAgent", () => {
  it.each<[string, () => Promise<TraceEvent[]>]>([
    ["两轮工具调用", () => traceOf(turns(read("a.txt"), read("b.txt"), finish))],
    [
      "一个回复里两个调用",
      () =>
        traceOf(
          createScriptedProvider([{ actions: [read("a.txt"), read("b.txt")] }, { action: finish }]),
        ),
    ],
    ["工具抛出异常", () => traceOf(turns({ type: "tool_call", tool: "broken", input: {} }))],
    ["模型的回复无效", () => traceOf(turns({ type: "dance" }))],
    [
      "开始前就取消",
      () => {
        const controller = new AbortController();
        controller.abort();
        return traceOf(turns(finish), { signal: controller.signal });
      },
    ],
  ])("accepts what the loop traces: %s", async (name, trace) => {
    const events = await trace();
    expect(checkTrace(events), `${name}：循环写出的轨迹应当完整`).toEqual({
      ok: true,
      events: events.length,
    });
  });

  it("catches a sink that loses an event: the loop's numbering shows the gap", async () => {
    // 一个“偶尔丢事件”的 sink：第一个工具的完成没有记下来。
    const events = await traceOf(turns(read("a.txt"), read("b.txt"), finish), {
      keep: (event) => !(event.type === "tool_completed" && event.callId === "call_1"),
    });
    expect(checkTrace(events), "丢了 call_1 的 tool_completed").toEqual({
      ok: false,
      problem: "seq_gap",
      seq: 6,
    });
  });

  it("finds the trace of a run that stopped being recorded midway unfinished", async () => {
    // 进程在第二次模型调用时崩溃：轨迹只写到那里。
    let crashed = false;
    const events = await traceOf(turns(read("a.txt"), finish), {
      keep: (event) => {
        if (event.type === "model_started" && event.step === 2) crashed = true;
        return !crashed;
      },
    });
    expect(checkTrace(events), "轨迹停在第 1 步的工具结果之后").toEqual({
      ok: false,
      problem: "unfinished",
      seq: 5,
    });
  });
});
