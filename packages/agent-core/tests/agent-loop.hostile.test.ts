import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import type { Provider } from "../src/provider.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";

const boom = () => {
  throw new Error("hostile");
};

/** Values that throw on almost any touch: the things a buggy or hostile peer may hand over. */
function hostileValues(): [string, unknown][] {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const trapAll = new Proxy(
    {},
    { get: boom, getPrototypeOf: boom, ownKeys: boom, has: boom, getOwnPropertyDescriptor: boom },
  );
  const errorWithThrowingGetters = Object.create(Error.prototype, {
    name: { get: boom },
    message: { get: boom },
  });
  return [
    ["a Proxy whose every trap throws", trapAll],
    ["a revoked Proxy", revoked.proxy],
    ["an Error whose name and message getters throw", errorWithThrowingGetters],
  ];
}

/** Awaitable without throwing (a `then` read answers undefined), hostile everywhere else. */
const thenOnly = new Proxy(
  {},
  {
    get: (_target, key) => (key === "then" ? undefined : boom()),
    getPrototypeOf: boom,
    ownKeys: boom,
    has: boom,
    getOwnPropertyDescriptor: boom,
  },
);

describe("runAgent resolves on hostile values", () => {
  it.each([
    // Awaiting a value reads its `then`: a value that throws there is a provider failure.
    ...hostileValues().map(
      ([name, value]) =>
        [name.includes("Proxy") ? "provider_error" : "invalid_action", name, value] as const,
    ),
    ["invalid_action", "a Proxy that only answers `then`", thenOnly] as const,
  ])("fails with %s when the provider resolves to %s", async (code, _, value) => {
    const provider: Provider = { complete: async () => value as never };
    const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
    expect(result).toMatchObject({ status: "failed", code });
  });

  it.each(hostileValues())("fails with invalid_action when the action is %s", async (_, value) => {
    const provider: Provider = { complete: async () => ({ action: value }) };
    const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
    expect(result).toMatchObject({ status: "failed", code: "invalid_action" });
  });

  it("fails with invalid_action when the response's action getter throws", async () => {
    const provider: Provider = {
      complete: async () => ({
        get action(): unknown {
          throw new Error("getter");
        },
      }),
    };
    const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
    expect(result).toMatchObject({ status: "failed", code: "invalid_action" });
  });

  it("fails with invalid_action when a field of the action throws or a tool input holds a proxy", async () => {
    const throwingType = {
      get type() {
        return boom();
      },
    };
    const proxyInput = { type: "tool_call", tool: "echo", input: { p: hostileValues()[0]?.[1] } };
    for (const action of [throwingType, proxyInput]) {
      const result = await runAgent(
        "任务",
        createScriptedProvider([{ action }]),
        {},
        {
          maxSteps: 5,
        },
      );
      expect(result).toMatchObject({ status: "failed", code: "invalid_action" });
    }
  });

  it.each(hostileValues())(
    "fails with provider_error when the provider throws %s",
    async (_, value) => {
      const events: TraceEvent[] = [];
      const provider: Provider = {
        complete: () => {
          throw value;
        },
      };
      const result = await runAgent(
        "任务",
        provider,
        {},
        { maxSteps: 5 },
        new AbortController().signal,
        {
          trace: (event) => void events.push(event),
        },
      );
      expect(result).toMatchObject({ status: "failed", code: "provider_error" });
      expect(events.at(-1)).toMatchObject({ type: "run_finished", code: "provider_error" });
    },
  );

  it.each(hostileValues())(
    "fails with provider_error when the provider rejects with %s",
    async (_, value) => {
      const provider: Provider = { complete: () => Promise.reject(value) };
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    },
  );

  it.each(hostileValues())("fails with tool_error when a tool throws %s", async (_, value) => {
    const tools: ToolSet = {
      bad: {
        execute: () => {
          throw value;
        },
      },
    };
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "bad", input: {} } },
    ]);
    const result = await runAgent(
      "任务",
      provider,
      tools,
      { maxSteps: 5 },
      new AbortController().signal,
    );
    expect(result).toMatchObject({ status: "failed", code: "tool_error", toolCalls: 1 });
  });

  it.each(hostileValues())(
    "writes back an observation when a tool returns %s",
    async (_, value) => {
      const provider = createScriptedProvider([
        { action: { type: "tool_call", tool: "odd", input: {} } },
        { action: { type: "finish", summary: "ok" } },
      ]);
      const result = await runAgent(
        "任务",
        provider,
        { odd: { execute: () => ({ value }) } },
        { maxSteps: 5 },
      );
      expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
      expect(result.messages[2]).toMatchObject({ role: "tool", ok: true });
    },
  );
});

/** The length of the longest string anywhere inside the values (keys included). */
function longest(values: readonly unknown[]): number {
  let max = 0;
  const visit = (value: unknown): void => {
    if (typeof value === "string") max = Math.max(max, value.length);
    else if (typeof value === "object" && value !== null)
      for (const [key, item] of Object.entries(value)) {
        max = Math.max(max, key.length);
        visit(item);
      }
  };
  for (const value of values) visit(value);
  return max;
}

describe("runAgent bounds every error text", () => {
  const huge = "x".repeat(5_000_000);
  const cap = 1_000;

  async function bounded(provider: Provider, tools: ToolSet) {
    const events: TraceEvent[] = [];
    const result = await runAgent("任务", provider, tools, { maxSteps: 5 }, undefined, {
      maxObservationChars: cap,
      trace: (event) => void events.push(event),
    });
    return {
      result,
      history: longest(result.messages.slice(1)),
      trace: longest(events),
    };
  }

  it("cuts a tool's 5 MB error message to maxObservationChars in history, reason and trace", async () => {
    const tools: ToolSet = {
      bad: {
        execute: () => {
          throw new Error(huge);
        },
      },
    };
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "bad", input: {} } },
    ]);
    const { result, history, trace } = await bounded(provider, tools);
    expect(result.code).toBe("tool_error");
    expect(result.reason.length).toBeLessThanOrEqual(cap);
    expect(result.reason).toMatch(/truncated: omitted \d+ of 50000\d\d chars/);
    expect(history).toBeLessThanOrEqual(cap);
    expect(trace).toBeLessThanOrEqual(cap);
  });

  it("cuts a provider's 5 MB error message the same way", async () => {
    const provider: Provider = { complete: () => Promise.reject(new Error(huge)) };
    const { result, trace } = await bounded(provider, {});
    expect(result.code).toBe("provider_error");
    expect(result.reason.length).toBeLessThanOrEqual(cap);
    expect(trace).toBeLessThanOrEqual(cap);
  });

  it("cuts a 5 MB unknown tool name and a 5 MB invalid reply in the reason", async () => {
    const unknown = await bounded(
      createScriptedProvider([
        { action: { type: "tool_call", tool: huge, input: {}, callId: huge } },
      ]),
      {},
    );
    expect(unknown.result.code).toBe("unknown_tool");
    expect(unknown.result.reason.length).toBeLessThanOrEqual(cap);
    expect(unknown.trace).toBeLessThanOrEqual(cap);
    expect(unknown.history).toBeLessThanOrEqual(cap);
    const invalid = await bounded(
      createScriptedProvider([{ action: { type: "finish", summary: "x", [huge]: 1 } }]),
      {},
    );
    expect(invalid.result.code).toBe("invalid_action");
    expect(invalid.result.reason.length).toBeLessThanOrEqual(cap);
    expect(invalid.trace).toBeLessThanOrEqual(cap);
  });
});
