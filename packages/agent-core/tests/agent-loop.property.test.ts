import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type RunResult, runAgent } from "../src/agent-loop.ts";
import type { Limits } from "../src/loop-guard.ts";
import type { Provider } from "../src/provider.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";

/** One scripted model turn, tagged with what the test knows about it. */
type Turn =
  | { readonly kind: "valid"; readonly action: unknown }
  | { readonly kind: "invalid"; readonly reply: unknown }
  | { readonly kind: "provider_error" }
  | { readonly kind: "provider_hang" };

const text = fc.constantFrom("a", "b", "同一句");
const input = fc.constantFrom({}, { text: "x" }, { text: "y", n: 1 }, { n: 1, text: "y" });
const callId = fc.option(fc.constantFrom("c1", "c2", "c3"), { nil: undefined });
const toolName = fc.constantFrom("echo", "fail", "stuck", "abort_after", "nope", "constructor");

const turn: fc.Arbitrary<Turn> = fc.oneof(
  {
    weight: 4,
    arbitrary: text.map((content) => ({
      kind: "valid" as const,
      action: { type: "message", content },
    })),
  },
  {
    weight: 6,
    arbitrary: fc.tuple(toolName, input, callId).map(([tool, toolInput, id]) => ({
      kind: "valid" as const,
      action: {
        type: "tool_call",
        tool,
        input: toolInput,
        ...(id === undefined ? {} : { callId: id }),
      },
    })),
  },
  {
    weight: 1,
    arbitrary: text.map((summary) => ({
      kind: "valid" as const,
      action: { type: "finish", summary },
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constant({ type: "shell" }),
        fc.constant({ type: "tool_call", tool: "echo" }),
        fc.constant({ type: "finish", summary: 1 }),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map((reply) => ({ kind: "invalid" as const, reply })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "provider_error" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "provider_hang" as const }) },
);

const limits: fc.Arbitrary<Limits> = fc.record(
  {
    maxSteps: fc.integer({ min: 0, max: 8 }),
    maxToolCalls: fc.integer({ min: 0, max: 4 }),
    maxTokens: fc.integer({ min: 0, max: 200 }),
    maxDurationMs: fc.integer({ min: 0, max: 100 }),
    maxRepeatedActions: fc.integer({ min: 1, max: 3 }),
  },
  { requiredKeys: ["maxSteps"] },
);

const scenario = fc.record({
  turns: fc.array(turn, { maxLength: 12 }),
  limits,
  preAborted: fc.nat(9).map((n) => n < 2),
  tokensPerTurn: fc.integer({ min: 0, max: 40 }),
});

interface Observed {
  readonly result: RunResult;
  readonly events: TraceEvent[];
  readonly providerCalls: number;
  readonly callsAfterAbort: number;
  readonly validReplies: number;
  readonly toolRuns: number;
}

/** Runs one scenario; every hang fires the abort first, so each run must resolve. */
async function runScenario(scenario: {
  turns: readonly Turn[];
  limits: Limits;
  preAborted: boolean;
  tokensPerTurn: number;
}): Promise<Observed> {
  const controller = new AbortController();
  if (scenario.preAborted) controller.abort();
  let now = 0;
  let providerCalls = 0;
  let callsAfterAbort = 0;
  let validReplies = 0;
  let toolRuns = 0;
  const usage = { inputTokens: scenario.tokensPerTurn, outputTokens: 1 };

  const provider: Provider = {
    async complete() {
      if (controller.signal.aborted) callsAfterAbort += 1;
      const next = scenario.turns[providerCalls];
      providerCalls += 1;
      now += 7;
      if (next === undefined) throw new Error("script exhausted");
      switch (next.kind) {
        case "valid":
          validReplies += 1;
          return { action: next.action, usage };
        case "invalid":
          return { action: next.reply, usage };
        case "provider_error":
          throw new Error("provider down");
        case "provider_hang":
          // Ignores the signal on purpose: the loop must not wait for it.
          queueMicrotask(() => controller.abort());
          return new Promise(() => {});
        default: {
          const unreachable: never = next;
          throw new Error(String(unreachable));
        }
      }
    },
  };
  const tools: ToolSet = {
    echo: {
      execute: (toolInput) => {
        toolRuns += 1;
        return toolInput;
      },
    },
    fail: {
      execute: () => {
        toolRuns += 1;
        throw new Error("tool failed");
      },
    },
    stuck: {
      execute: () => {
        toolRuns += 1;
        queueMicrotask(() => controller.abort());
        return new Promise(() => {});
      },
    },
    abort_after: {
      execute: () => {
        toolRuns += 1;
        controller.abort();
        return "done";
      },
    },
  };
  const events: TraceEvent[] = [];
  const result = await runAgent("属性测试", provider, tools, scenario.limits, controller.signal, {
    clock: () => now,
    trace: (event) => {
      events.push(event);
    },
  });
  return { result, events, providerCalls, callsAfterAbort, validReplies, toolRuns };
}

const STATUSES = ["completed", "failed", "budget_exceeded", "cancelled", "blocked"];
const settings = { numRuns: 150 };

describe("runAgent over random scripts", () => {
  it("always resolves, with one of the five statuses", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { result } = await runScenario(s);
        expect(STATUSES).toContain(result.status);
      }),
      settings,
    );
  });

  it("never calls the provider more than maxSteps times", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { providerCalls } = await runScenario(s);
        expect(providerCalls).toBeLessThanOrEqual(s.limits.maxSteps);
      }),
      settings,
    );
  });

  it("counts as steps exactly the provider calls that returned a valid reply", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { result, validReplies } = await runScenario(s);
        expect(result.steps).toBe(validReplies);
      }),
      settings,
    );
  });

  it("never calls the provider once the signal has fired", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { callsAfterAbort, providerCalls } = await runScenario(s);
        expect(callsAfterAbort).toBe(0);
        if (s.preAborted) expect(providerCalls).toBe(0);
      }),
      settings,
    );
  });

  it("counts every tool that ran, and never more than maxToolCalls", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { result, toolRuns } = await runScenario(s);
        expect(result.toolCalls).toBe(toolRuns);
        if (s.limits.maxToolCalls !== undefined)
          expect(toolRuns).toBeLessThanOrEqual(s.limits.maxToolCalls);
      }),
      settings,
    );
  });

  it("ends every trace with exactly one run_finished, in strictly increasing seq order", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { result, events } = await runScenario(s);
        expect(events.filter((event) => event.type === "run_finished")).toHaveLength(1);
        expect(events.at(-1)).toMatchObject({ type: "run_finished", status: result.status });
        expect(
          events.every((event, index) => index === 0 || event.seq > (events[index - 1]?.seq ?? 0)),
        ).toBe(true);
      }),
      settings,
    );
  });

  it("pairs every started model call and tool with its completion", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { events } = await runScenario(s);
        const count = (type: TraceEvent["type"]) =>
          events.filter((event) => event.type === type).length;
        expect(count("model_completed")).toBe(count("model_started"));
        expect(count("tool_completed")).toBe(count("tool_started"));
      }),
      settings,
    );
  });

  it("pairs every recorded tool call with a tool result of the same callId", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { result } = await runScenario(s);
        const calls = result.messages.flatMap((m) =>
          m.role === "assistant" && m.type === "tool_call" ? [m.callId] : [],
        );
        const results = result.messages.flatMap((m) => (m.role === "tool" ? [m.callId] : []));
        expect(results).toEqual(calls);
      }),
      settings,
    );
  });
});
