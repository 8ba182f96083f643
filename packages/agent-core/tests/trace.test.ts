import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import { createRedactor } from "../src/redact.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import { createTracer, type TraceEvent } from "../src/trace.ts";
import { SECRET_CORPUS, secretCore } from "./fixtures/secret-corpus.ts";

const replies = (...actions: unknown[]) =>
  createScriptedProvider(actions.map((action) => ({ action })));
const echo: ToolSet = { echo: { execute: (input) => input.text } };

async function traced(...args: Parameters<typeof runAgent>) {
  const events: TraceEvent[] = [];
  const [task, provider, tools, limits, signal, options] = args;
  const result = await runAgent(task, provider, tools, limits, signal, {
    ...options,
    trace: (event) => {
      events.push(event);
    },
  });
  return { result, events };
}

describe("trace", () => {
  it("emits the events of a tool round in order with a strictly increasing seq", async () => {
    const { events } = await traced(
      "任务",
      replies(
        { type: "tool_call", tool: "echo", input: { text: "hi" } },
        { type: "finish", summary: "ok" },
      ),
      echo,
      { maxSteps: 5 },
    );
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
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("ends with the run's status and counts", async () => {
    const { result, events } = await traced(
      "任务",
      replies({ type: "finish", summary: "ok" }),
      {},
      { maxSteps: 5 },
    );
    expect(events.at(-1)).toMatchObject({
      type: "run_finished",
      status: result.status,
      code: result.code,
      steps: 1,
      toolCalls: 0,
    });
  });

  it("emits run_finished when the run is cancelled before it starts", async () => {
    const controller = new AbortController();
    controller.abort();
    const { events } = await traced("任务", replies(), {}, { maxSteps: 5 }, controller.signal);
    expect(events.map((event) => event.type)).toEqual(["run_started", "run_finished"]);
    expect(events.at(-1)).toMatchObject({ status: "cancelled" });
  });

  it("emits model_completed and run_finished when the provider fails", async () => {
    const { events } = await traced(
      "任务",
      createScriptedProvider([{ error: new Error("down") }]),
      {},
      {
        maxSteps: 5,
      },
    );
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "model_started",
      "model_completed",
      "run_finished",
    ]);
    expect(events[2]).toMatchObject({ ok: false });
  });

  it("emits tool_completed and run_finished when a tool throws", async () => {
    const tools: ToolSet = {
      bad: {
        execute: () => {
          throw new Error("boom");
        },
      },
    };
    const { events } = await traced(
      "任务",
      replies({ type: "tool_call", tool: "bad", input: {} }),
      tools,
      {
        maxSteps: 5,
      },
    );
    expect(events.slice(-2)).toMatchObject([
      {
        type: "tool_completed",
        ok: false,
        detail: '{"error":{"code":"tool_error","message":"boom"},"ok":false}',
      },
      { type: "run_finished", status: "failed" },
    ]);
  });

  it("does not change the run's result when the sink throws", async () => {
    const run = (trace?: () => never) =>
      runAgent(
        "任务",
        replies(
          { type: "tool_call", tool: "echo", input: { text: "hi" } },
          { type: "finish", summary: "ok" },
        ),
        echo,
        { maxSteps: 5 },
        undefined,
        trace === undefined ? {} : { trace },
      );
    const quiet = await run();
    const noisy = await run(() => {
      throw new Error("disk full");
    });
    expect({ ...noisy, messages: [...noisy.messages] }).toEqual({
      ...quiet,
      messages: [...quiet.messages],
    });
  });

  it("does not leave an unhandled rejection when an async sink rejects", async () => {
    const result = await runAgent(
      "任务",
      replies({ type: "finish", summary: "ok" }),
      {},
      { maxSteps: 5 },
      undefined,
      {
        trace: async () => Promise.reject(new Error("remote sink down")),
      },
    );
    expect(result.status).toBe("completed");
  });

  it("stamps events with the run's clock", () => {
    let now = 100;
    const events: TraceEvent[] = [];
    const tracer = createTracer(
      (event) => {
        events.push(event);
      },
      () => now,
    );
    now = 130;
    tracer.emit({ type: "model_started", step: 1 });
    expect(events[0]).toMatchObject({ seq: 1, atMs: 30 });
  });
});

describe("createTracer", () => {
  it("without a sink is disabled and never reads the clock", () => {
    let reads = 0;
    const tracer = createTracer(undefined, () => {
      reads += 1;
      return 0;
    });
    expect(tracer.enabled).toBe(false);
    tracer.emit({ type: "model_started", step: 1 });
    expect(reads).toBe(0);
  });

  it("with a sink is enabled and hands it frozen, numbered events", () => {
    const events: TraceEvent[] = [];
    const tracer = createTracer(
      (event) => {
        events.push(event);
      },
      () => 5,
    );
    expect(tracer.enabled).toBe(true);
    tracer.emit({ type: "model_started", step: 1 });
    tracer.emit({ type: "model_started", step: 2 });
    expect(events).toEqual([
      { type: "model_started", step: 1, seq: 1, atMs: 0 },
      { type: "model_started", step: 2, seq: 2, atMs: 0 },
    ]);
    expect(Object.isFrozen(events[0])).toBe(true);
  });

  it("keeps emitting after a sink rejected, and handles each rejection", async () => {
    const seen: number[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const tracer = createTracer(
        (event) => {
          seen.push(event.seq);
          return Promise.reject(new Error(`sink down at ${event.seq}`));
        },
        () => 0,
      );
      tracer.emit({ type: "model_started", step: 1 });
      tracer.emit({ type: "model_started", step: 2 });
      // Unhandled rejections are reported after the microtask queue drains.
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(seen).toEqual([1, 2]);
    expect(unhandled).toEqual([]);
  });
});

describe("secrets never reach an observation or the trace", () => {
  it("masks a corpus of secret shapes in tool values, tool errors, tool input and the goal", async () => {
    const nested = { deep: { list: [...SECRET_CORPUS], map: new Map([["k", SECRET_CORPUS[0]]]) } };
    const tools: ToolSet = {
      leak: { execute: () => nested },
      leakText: { execute: () => SECRET_CORPUS.join("\n") },
      leakError: {
        execute: () => {
          throw new Error(`failed with ${SECRET_CORPUS.join(" ")}`);
        },
      },
    };
    const { result, events } = await traced(
      `部署，密钥是 ${SECRET_CORPUS[3]}`,
      replies(
        { type: "tool_call", tool: "leak", input: {} },
        { type: "tool_call", tool: "leakText", input: { token: SECRET_CORPUS[1] } },
        { type: "tool_call", tool: "leakError", input: {} },
      ),
      tools,
      { maxSteps: 5 },
    );
    const observations = JSON.stringify(
      result.messages.filter((message) => message.role === "tool"),
    );
    const trace = JSON.stringify(events);
    for (const secret of SECRET_CORPUS) {
      expect(observations).not.toContain(secretCore(secret));
      expect(trace).not.toContain(secretCore(secret));
    }
    expect(result.reason).not.toContain(secretCore(SECRET_CORPUS[0] ?? ""));
  });

  it("masks the value of a secret-looking environment variable", async () => {
    const redact = createRedactor({ env: { PAYMENT_API_KEY: "pay-live-0000-1111" } });
    const tools: ToolSet = { env: { execute: () => "key=pay-live-0000-1111 loaded" } };
    const { result, events } = await traced(
      "任务",
      replies({ type: "tool_call", tool: "env", input: {} }, { type: "finish", summary: "ok" }),
      tools,
      { maxSteps: 5 },
      undefined,
      { redact },
    );
    expect(JSON.stringify(result.messages)).not.toContain("pay-live-0000-1111");
    expect(JSON.stringify(events)).not.toContain("pay-live-0000-1111");
  });
});
