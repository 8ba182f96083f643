import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgent } from "../src/agent-loop.ts";
import type { RunExtension } from "../src/extension.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import { defineTool, type ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { checkTrace } from "../src/trace-check.ts";
import { call } from "./fixtures/actions.ts";

/** A promise and the function that resolves it. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * Two reads that can only finish together: each waits until the other has started. Run one
 * after the other they would wait forever; the 5 s here only turns that hang into a failure.
 */
function meetingReads(log: string[]) {
  const started = { a: gate(), b: gate() };
  const read = (name: "a" | "b", other: "a" | "b") => ({
    description: `读 ${name}`,
    concurrent: true,
    async execute() {
      log.push(`start ${name}`);
      started[name].open();
      const met = await Promise.race([
        started[other].opened.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
      ]);
      log.push(`end ${name}`);
      return met ? `${name} 见到了 ${other}` : `${name} 没等到 ${other}`;
    },
  });
  return { read_a: read("a", "b"), read_b: read("b", "a") };
}

const reply = (...actions: unknown[]) => ({ actions });
const finish = { action: { type: "finish", summary: "好了" } };

// Hang guard only: a batch that waits on itself fails here instead of at vitest's default.
describe("a reply's calls to concurrent tools", { timeout: 15_000 }, () => {
  it("run at the same time, and their results are written in the reply's call order", async () => {
    const log: string[] = [];
    const events: TraceEvent[] = [];
    const provider = createScriptedProvider([reply(call("read_b"), call("read_a")), finish]);
    const result = await runAgent("读", provider, meetingReads(log), { maxSteps: 3 }, undefined, {
      trace: (event) => void events.push(event),
    });
    expect(result.status).toBe("completed");
    // Both started before either ended: they ran together.
    expect(log.slice(0, 2).sort()).toEqual(["start a", "start b"]);
    const results = result.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => [message.tool, message.ok ? message.content : ""])).toEqual([
      ["read_b", "b 见到了 a"],
      ["read_a", "a 见到了 b"],
    ]);
    expect(result.toolCalls).toBe(2);
    // The trace is still one run's trace: both opened, both closed, in call order.
    expect(
      checkTrace(events.map((event, index) => ({ ...event, seq: index + 1, atMs: index }))),
    ).toMatchObject({ ok: true });
    const completed = events.filter((event) => event.type === "tool_completed");
    expect(completed.map((event) => (event as { tool: string }).tool)).toEqual([
      "read_b",
      "read_a",
    ]);
  });

  it("a tool not marked concurrent runs alone: it starts only after the read before it ended", async () => {
    const log: string[] = [];
    const tools: ToolSet = {
      read: {
        concurrent: true,
        execute: async () => {
          log.push("read");
          return "r";
        },
      },
      write: {
        execute: () => {
          log.push("write");
          return "w";
        },
      },
      slow_read: {
        concurrent: true,
        execute: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          log.push("slow_read");
          return "s";
        },
      },
    };
    const provider = createScriptedProvider([
      reply(call("slow_read"), call("read"), call("write"), call("read")),
      finish,
    ]);
    const result = await runAgent("读写", provider, tools, { maxSteps: 3 });
    expect(result.status).toBe("completed");
    // The write waits for both reads of the batch before it, and the last read for the write.
    expect(log.indexOf("write")).toBeGreaterThan(log.indexOf("slow_read"));
    expect(log.at(-1)).toBe("read");
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.tool)).toEqual([
      "slow_read",
      "read",
      "write",
      "read",
    ]);
  });

  it("an invalid input in the middle is answered in its place; the calls around it still run", async () => {
    const ran: string[] = [];
    const tools: ToolSet = {
      read: defineTool({
        concurrent: true,
        inputSchema: z.strictObject({ path: z.string() }),
        execute: (input) => {
          ran.push(input.path);
          return input.path;
        },
      }),
    };
    const provider = createScriptedProvider([
      reply(call("read", { path: "a" }), call("read", { nope: 1 }), call("read", { path: "c" })),
      finish,
    ]);
    const result = await runAgent("读", provider, tools, { maxSteps: 3 });
    expect(result.status).toBe("completed");
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => (m.ok ? m.content : m.error.code))).toEqual([
      "a",
      "invalid_input",
      "c",
    ]);
    expect(ran).toEqual(["a", "c"]);
  });

  it("counts each call once against maxToolCalls: the call over the budget is not run, and says so", async () => {
    const ran: string[] = [];
    const tools: ToolSet = {
      read: {
        concurrent: true,
        execute: (input) => {
          ran.push(String(input.n));
          return "ok";
        },
      },
    };
    const provider = createScriptedProvider([
      reply(call("read", { n: 1 }), call("read", { n: 2 }), call("read", { n: 3 })),
      finish,
    ]);
    const result = await runAgent("读", provider, tools, { maxSteps: 3, maxToolCalls: 2 });
    expect(result.code).toBe("max_tool_calls");
    expect(ran).toEqual(["1", "2"]);
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => (m.ok ? "ok" : m.error.code))).toEqual([
      "ok",
      "ok",
      "max_tool_calls",
    ]);
  });

  it("asks the extensions for every call in order, and hands them the results in order", async () => {
    const seen: string[] = [];
    const spy: RunExtension = {
      name: "spy",
      beforeToolCall: (info) => void seen.push(`before ${String(info.input.n)}`),
      afterToolCall: (info) => void seen.push(`after ${String(info.input.n)}`),
    };
    const tools: ToolSet = {
      read: {
        concurrent: true,
        execute: async (input) => {
          // The first call is the slowest: its result still comes first.
          await new Promise((resolve) => setTimeout(resolve, input.n === 1 ? 30 : 0));
          return String(input.n);
        },
      },
    };
    const provider = createScriptedProvider([
      reply(call("read", { n: 1 }), call("read", { n: 2 })),
      finish,
    ]);
    const result = await runAgent("读", provider, tools, { maxSteps: 3 }, undefined, {
      extensions: [spy],
    });
    expect(result.status).toBe("completed");
    expect(seen).toEqual(["before 1", "before 2", "after 1", "after 2"]);
  });

  it("a cancel stops every running read: each is answered cancelled, and the run ends cancelled", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const tools: ToolSet = {
      read: {
        concurrent: true,
        execute: (input, signal) =>
          new Promise((_, reject) => {
            started.push(String(input.n));
            if (started.length === 2) controller.abort();
            signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          }),
      },
    };
    const provider = createScriptedProvider([
      reply(call("read", { n: 1 }), call("read", { n: 2 }), call("read", { n: 3 })),
      finish,
    ]);
    const result = await runAgent("读", provider, tools, { maxSteps: 3 }, controller.signal);
    expect(result.status).toBe("cancelled");
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => (m.ok ? "ok" : m.error.code))).toEqual([
      "cancelled",
      "cancelled",
      "cancelled",
    ]);
  });
});
