import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import type { Limits } from "../src/loop-guard.ts";
import type { Provider } from "../src/provider.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { call } from "./fixtures/actions.ts";

const finish = { type: "finish", summary: "ok" };

/** Resolves after `ticks` microtasks. */
async function microtasks(ticks: number): Promise<void> {
  for (let i = 0; i < ticks; i += 1) await Promise.resolve();
}

describe("runAgent counts and traces only tools that really ran", () => {
  it.each(Array.from({ length: 16 }, (_, ticks) => ticks))(
    "does not count or trace a second tool when the abort lands %i microtasks after the model replied",
    async (ticks) => {
      const controller = new AbortController();
      let executed = 0;
      let calls = 0;
      const provider: Provider = {
        complete: async () => {
          calls += 1;
          if (calls === 2) void microtasks(ticks).then(() => controller.abort());
          return { action: call("echo", { n: calls }) };
        },
      };
      const tools: ToolSet = {
        echo: {
          execute: async () => {
            executed += 1;
            return "ok";
          },
        },
      };
      const events: TraceEvent[] = [];
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 }, controller.signal, {
        trace: (event) => void events.push(event),
      });
      expect(result.status).toBe("cancelled");
      expect(result.toolCalls).toBe(executed);
      expect(events.filter((event) => event.type === "tool_started")).toHaveLength(executed);
      const recordedCalls = result.messages.filter(
        (m) => m.role === "assistant" && m.type === "tool_call",
      );
      expect(result.messages.filter((m) => m.role === "tool")).toHaveLength(recordedCalls.length);
    },
  );
});

describe("runAgent keeps call ids unique within a run", () => {
  it("renames a callId the model reuses, and pairs each result with its own call", async () => {
    const provider = createScriptedProvider([
      { action: call("echo", { text: "a" }, "c1") },
      { action: call("echo", { text: "b" }, "c1") },
      { action: call("echo", { text: "c" }, "call_4") },
      { action: call("echo", { text: "d" }) },
      { action: finish },
    ]);
    const result = await runAgent(
      "任务",
      provider,
      { echo: { execute: (input) => input.text } },
      { maxSteps: 10 },
    );
    const ids = result.messages.flatMap((m) =>
      m.role === "assistant" && m.type === "tool_call" ? [m.callId] : [],
    );
    expect(new Set(ids).size).toBe(4);
    expect(ids[0]).toBe("c1");
    expect(ids[2]).toBe("call_4");
    const results = result.messages.flatMap((m) =>
      m.role === "tool" && m.ok ? [[m.callId, m.content]] : [],
    );
    expect(results).toEqual([
      [ids[0], "a"],
      [ids[1], "b"],
      [ids[2], "c"],
      [ids[3], "d"],
    ]);
  });
});

describe("runAgent hands trace sinks a frozen copy of the limits", () => {
  it("emits run_started with limits equal to the caller's but neither the same object nor mutable", async () => {
    const limits: Limits = { maxSteps: 3, maxToolCalls: 2 };
    const events: TraceEvent[] = [];
    await runAgent("任务", createScriptedProvider([{ action: finish }]), {}, limits, undefined, {
      trace: (event) => void events.push(event),
    });
    const started = events[0];
    if (started?.type !== "run_started") throw new Error("expected run_started first");
    expect(started.limits).toEqual(limits);
    expect(started.limits).not.toBe(limits);
    expect(Object.isFrozen(started.limits)).toBe(true);
    limits.maxSteps = 99;
    expect(started.limits.maxSteps).toBe(3);
  });
});

/** The input the history records and the input the tool got, for one tool call. */
async function recordedInput(json: string): Promise<{ recorded: unknown; seen: unknown }> {
  const action = JSON.parse(`{"type":"tool_call","tool":"t","input":${json}}`);
  let seen: unknown;
  const tools: ToolSet = {
    t: {
      execute: (input) => {
        seen = input;
        return "ok";
      },
    },
  };
  const result = await runAgent(
    "任务",
    createScriptedProvider([{ action }, { action: finish }]),
    tools,
    { maxSteps: 5 },
  );
  expect(result.status).toBe("completed");
  const message = result.messages[1];
  const recorded =
    message?.role === "assistant" && message.type === "tool_call" ? message.input : undefined;
  return { recorded, seen };
}

describe("runAgent never loses a __proto__ input key", () => {
  it("keeps a __proto__ key parsed from JSON as data, for the tool and in the history", async () => {
    const json = '{"__proto__":{"polluted":true},"n":{"__proto__":1}}';
    const { recorded, seen } = await recordedInput(json);
    const input = seen as Record<string, unknown>;
    expect(Object.hasOwn(input, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(JSON.stringify(input)).toBe(json);
    expect(JSON.stringify(recorded)).toBe(json);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("runAgent records a tool input with every secret in it masked, and its shape kept", () => {
  const KEY = `sk-proj-${"Pr0jKeyAbCdEf".repeat(4)}`;

  it.each([
    [
      "in an array",
      `{"list":["a","${KEY}",3,null]}`,
      '{"list":["a","[REDACTED:openai-key]",3,null]}',
    ],
    [
      "in a nested array",
      `{"rows":[["x"],["${KEY}"]]}`,
      '{"rows":[["x"],["[REDACTED:openai-key]"]]}',
    ],
    ["in a key", `{"${KEY}":1,"b":2}`, '{"[REDACTED:openai-key]":1,"b":2}'],
    [
      "in a nested object",
      `{"a":{"b":"${KEY}"},"c":true}`,
      '{"a":{"b":"[REDACTED:openai-key]"},"c":true}',
    ],
    [
      "next to a __proto__ key",
      `{"__proto__":{"p":1},"k":"${KEY}"}`,
      '{"__proto__":{"p":1},"k":"[REDACTED:openai-key]"}',
    ],
    ["nowhere", '{"a":[1,{"b":null}],"c":"d"}', '{"a":[1,{"b":null}],"c":"d"}'],
  ])("%s", async (_, json, expected) => {
    const { recorded, seen } = await recordedInput(json);
    expect(JSON.stringify(recorded)).toBe(expected);
    // The tool gets exactly what the history records: the same frozen object.
    expect(seen).toBe(recorded);
    expect(Object.isFrozen(recorded)).toBe(true);
    expect(Object.getPrototypeOf(recorded)).toBe(Object.prototype);
  });

  it("keeps an array an array when it masks inside it", async () => {
    const { recorded } = await recordedInput(`{"list":["${KEY}"]}`);
    expect(Array.isArray((recorded as { list: unknown }).list)).toBe(true);
  });
});
