import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import {
  boundTraceEvent,
  createTracer,
  MAX_TRACE_FIELD_CHARS,
  MAX_TRACE_LIST_ITEMS,
  type TraceEvent,
} from "../src/trace.ts";

const replies = (...actions: unknown[]) =>
  createScriptedProvider(actions.map((action) => ({ action })));

/** A tool round, then a finish: the events a required sink is asked to write. */
const toolThenFinish = () =>
  replies(
    { type: "tool_call", tool: "echo", input: { text: "hi" } },
    { type: "finish", summary: "ok" },
  );

/** Counts how often the tool really ran. */
function countingEcho() {
  const ran = { count: 0 };
  const tools: ToolSet = {
    echo: {
      execute: (input) => {
        ran.count += 1;
        return input.text;
      },
    },
  };
  return { ran, tools };
}

/** A sink that fails (throws, or rejects when `async`) on the first event of `type`. */
function failingOn(type: TraceEvent["type"], options: { readonly async?: boolean } = {}) {
  const written: TraceEvent[] = [];
  const sink = (event: TraceEvent) => {
    if (event.type === type) {
      const error = new Error("ENOSPC: no space left on device, write");
      if (options.async) return Promise.reject(error);
      throw error;
    }
    written.push(event);
    return options.async ? Promise.resolve() : undefined;
  };
  return { written, sink };
}

describe("a required trace sink", () => {
  it.each([
    ["run_started", 0, 0],
    ["model_started", 0, 0],
    ["model_completed", 0, 1],
    ["tool_started", 0, 1],
    ["tool_completed", 1, 1],
  ] as const)(
    "that throws on %s ends the run failed / trace_failed (tools run: %i)",
    async (type, toolRuns, steps) => {
      const { ran, tools } = countingEcho();
      const { written, sink } = failingOn(type);
      const result = await runAgent("任务", toolThenFinish(), tools, { maxSteps: 5 }, undefined, {
        requiredTrace: sink,
      });
      expect(result).toMatchObject({ status: "failed", code: "trace_failed", steps });
      expect(result.reason).toContain("ENOSPC");
      expect(ran.count, `tool runs after a failed ${type}`).toBe(toolRuns);
      expect(result.toolCalls).toBe(toolRuns);
      // Nothing after the failure: a trace with a gap is worse than one that stops.
      const seqs = written.map((event) => event.seq);
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
      expect(written.some((event) => event.type === type)).toBe(false);
      // Every tool call in the history still has its result.
      const calls = result.messages.filter((m) => m.role === "assistant" && m.type === "tool_call");
      const results = result.messages.filter((m) => m.role === "tool");
      expect(results.length).toBe(calls.length);
    },
  );

  it("that fails on run_finished turns a completed run into trace_failed (the end was not recorded)", async () => {
    const { ran, tools } = countingEcho();
    const { sink } = failingOn("run_finished");
    const result = await runAgent("任务", toolThenFinish(), tools, { maxSteps: 5 }, undefined, {
      requiredTrace: sink,
    });
    expect(result).toMatchObject({ status: "failed", code: "trace_failed", steps: 2 });
    expect(ran.count).toBe(1);
  });

  it("that rejects asynchronously is awaited at the end: the failure is the run's", async () => {
    const { tools } = countingEcho();
    const { sink } = failingOn("run_finished", { async: true });
    const result = await runAgent("任务", toolThenFinish(), tools, { maxSteps: 5 }, undefined, {
      requiredTrace: sink,
    });
    expect(result).toMatchObject({ status: "failed", code: "trace_failed" });
  });

  it("that rejects asynchronously mid-run stops the run at a later boundary, before the next tool", async () => {
    const { ran, tools } = countingEcho();
    const { sink } = failingOn("model_started", { async: true });
    const provider = replies(
      { type: "tool_call", tool: "echo", input: { text: "1" } },
      { type: "tool_call", tool: "echo", input: { text: "2" } },
      { type: "tool_call", tool: "echo", input: { text: "3" } },
      { type: "finish", summary: "ok" },
    );
    const result = await runAgent("任务", provider, tools, { maxSteps: 9 }, undefined, {
      requiredTrace: sink,
    });
    expect(result).toMatchObject({ status: "failed", code: "trace_failed" });
    // The rejection settles while the first model call is under way: no tool ever starts.
    expect(ran.count).toBe(0);
  });

  it("keeps optional sinks' rule: a throwing `trace` sink never changes the run", async () => {
    const { tools } = countingEcho();
    const result = await runAgent("任务", toolThenFinish(), tools, { maxSteps: 5 }, undefined, {
      trace: () => {
        throw new Error("broken optional sink");
      },
    });
    expect(result).toMatchObject({ status: "completed", code: "finished" });
  });

  it("gets the same numbered events as the optional sink, which still gets them after a failure", async () => {
    const optional: TraceEvent[] = [];
    const { written, sink } = failingOn("tool_completed");
    const { tools } = countingEcho();
    await runAgent("任务", toolThenFinish(), tools, { maxSteps: 5 }, undefined, {
      trace: (event) => {
        optional.push(event);
      },
      requiredTrace: sink,
    });
    expect(written).toEqual(optional.slice(0, written.length));
    expect(optional.at(-1)).toMatchObject({ type: "run_finished", code: "trace_failed" });
  });
});

describe("createTracer with a required sink", () => {
  it("keeps the first failure, redaction left to the loop, and writes nothing after it", async () => {
    const seen: number[] = [];
    const tracer = createTracer(
      undefined,
      () => 0,
      (event) => {
        seen.push(event.seq);
        if (event.seq === 2) throw new Error("first");
        if (event.seq > 2) throw new Error("never asked");
      },
    );
    expect(tracer.enabled).toBe(true);
    tracer.emit({ type: "model_started", step: 1 });
    expect(tracer.failure).toBeUndefined();
    tracer.emit({ type: "model_started", step: 2 });
    tracer.emit({ type: "model_started", step: 3 });
    await tracer.settled();
    expect(tracer.failure).toBe("轨迹写入失败：first");
    expect(seen).toEqual([1, 2]);
  });

  it("settles only once every pending write has", async () => {
    let release: () => void = () => {};
    const tracer = createTracer(
      undefined,
      () => 0,
      () =>
        new Promise<void>((_resolve, reject) => {
          release = () => reject(new Error("late"));
        }),
    );
    tracer.emit({ type: "model_started", step: 1 });
    let settled = false;
    const done = tracer.settled().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    release();
    await done;
    expect(tracer.failure).toBe("轨迹写入失败：late");
  });
});

describe("boundTraceEvent", () => {
  it("cuts a megabyte field to the bound, keeping head and tail around a marker", () => {
    const big = `HEAD${"x".repeat(1_000_000)}TAIL`;
    const event = { type: "tool_completed", seq: 4, atMs: 1, detail: big, ok: true } as const;
    const bounded = boundTraceEvent(event);
    expect(bounded.detail.length).toBeLessThanOrEqual(MAX_TRACE_FIELD_CHARS);
    expect(bounded.detail.startsWith("HEAD")).toBe(true);
    expect(bounded.detail.endsWith("TAIL")).toBe(true);
    expect(bounded.detail).toContain("truncated");
    expect(bounded).toMatchObject({ type: "tool_completed", seq: 4, ok: true, truncated: true });
    expect(JSON.stringify(bounded).length).toBeLessThan(MAX_TRACE_FIELD_CHARS + 200);
  });

  it("bounds nested texts and long lists, and leaves a small event as it was", () => {
    const results = Array.from({ length: 500 }, (_, index) => ({
      callId: `call_${index}`,
      tool: "t".repeat(10_000),
      artifactId: "a",
    }));
    const bounded = boundTraceEvent({ type: "compacted", results, reasons: ["r".repeat(9_000)] });
    expect(bounded.results).toHaveLength(MAX_TRACE_LIST_ITEMS);
    expect(bounded.results[0]?.tool.length).toBeLessThanOrEqual(MAX_TRACE_FIELD_CHARS);
    expect(bounded.reasons[0]?.length).toBeLessThanOrEqual(MAX_TRACE_FIELD_CHARS);
    expect(bounded.truncated).toBe(true);
    const small = { type: "model_started", step: 1, seq: 2, atMs: 3 };
    expect(boundTraceEvent(small)).toEqual(small);
  });
});

describe("boundTraceEvent at its bounds", () => {
  it("keeps a text of exactly the bound and cuts one character more", () => {
    const exact = boundTraceEvent({ type: "x", detail: "a".repeat(MAX_TRACE_FIELD_CHARS) });
    expect(exact).toEqual({ type: "x", detail: "a".repeat(MAX_TRACE_FIELD_CHARS) });
    const over = boundTraceEvent({ type: "x", detail: "a".repeat(MAX_TRACE_FIELD_CHARS + 1) });
    expect(over.truncated).toBe(true);
    expect(over.detail.length).toBeLessThanOrEqual(MAX_TRACE_FIELD_CHARS);
  });

  it("keeps a list of exactly the bound and cuts one entry more", () => {
    const list = (length: number) => Array.from({ length }, (_, index) => index);
    expect(boundTraceEvent({ type: "x", items: list(MAX_TRACE_LIST_ITEMS) })).toEqual({
      type: "x",
      items: list(MAX_TRACE_LIST_ITEMS),
    });
    expect(boundTraceEvent({ type: "x", items: list(MAX_TRACE_LIST_ITEMS + 1) })).toEqual({
      type: "x",
      items: list(MAX_TRACE_LIST_ITEMS),
      truncated: true,
    });
  });

  it("leaves numbers, booleans, null and short nested values as they are", () => {
    const event = {
      type: "x",
      n: 3,
      ok: false,
      none: null,
      nested: { list: [1, "two", { deep: true }], empty: [] },
    };
    expect(boundTraceEvent(event)).toEqual(event);
  });
});

describe("createTracer's settled", () => {
  it("waits for a required write that finishes on a later timer, not only on a microtask", async () => {
    let written = false;
    const tracer = createTracer(
      undefined,
      () => 0,
      () =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            written = true;
            resolve();
          }, 5);
        }),
    );
    tracer.emit({ type: "model_started", step: 1 });
    await tracer.settled();
    expect(written).toBe(true);
    expect(tracer.failure).toBeUndefined();
  });
});
