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
  | { readonly kind: "hostile_response"; readonly response: () => unknown }
  | { readonly kind: "provider_error"; readonly error: () => unknown }
  | { readonly kind: "provider_hang" };

/** A secret the model, the tools and the errors may all repeat; it must never come out. */
const SECRET = `sk-proj-${"Pr0pT3stKey".repeat(4)}`;
const HUGE = "h".repeat(50_000);

const throwing = () => {
  throw new Error("hostile");
};

/**
 * Values that break naive code: proxies whose traps throw, a revoked proxy, a
 * throwing getter, a cycle, BigInt, a symbol, a huge string. Made fresh on demand
 * (a revoked proxy cannot be shrunk or printed by fast-check).
 */
const hostile: fc.Arbitrary<() => unknown> = fc.constantFrom(
  () => new Proxy({}, { get: throwing, getPrototypeOf: throwing, ownKeys: throwing }),
  () => {
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    return revocable.proxy;
  },
  () => ({
    get type() {
      return throwing();
    },
  }),
  () => {
    const cycle: Record<string, unknown> = { type: "tool_call", tool: "echo" };
    cycle.input = { self: cycle };
    return cycle;
  },
  () => 10n ** 30n,
  () => Symbol("hostile"),
  () => HUGE,
  () => Object.create(Error.prototype, { name: { get: throwing }, message: { get: throwing } }),
);

const text = fc.constantFrom("a", "b", "同一句", `key ${SECRET}`);
const input = fc.constantFrom(
  {},
  { text: "x" },
  { text: "y", n: 1 },
  { n: 1, text: "y" },
  { text: SECRET },
  { [SECRET]: null },
);
const callId = fc.option(fc.constantFrom("c1", "c2", "c3", "call_2", SECRET), { nil: undefined });
const toolName = fc.constantFrom(
  "echo",
  "fail",
  "stuck",
  "abort_after",
  "hostile_throw",
  "hostile_value",
  "nope",
  "constructor",
  SECRET,
);

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
  {
    weight: 1,
    arbitrary: hostile.map((make) => ({
      kind: "invalid" as const,
      reply: { thunk: make },
    })),
  },
  {
    weight: 1,
    arbitrary: hostile.map((response) => ({ kind: "hostile_response" as const, response })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constant(() => new Error(`provider down ${SECRET}`)),
        hostile,
      )
      .map((error) => ({ kind: "provider_error" as const, error })),
  },
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
  hostileTool: hostile,
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
  hostileTool: () => unknown;
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
          return { action: unthunk(next.reply), usage };
        case "hostile_response":
          return next.response() as never;
        case "provider_error":
          throw next.error();
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
    hostile_throw: {
      execute: () => {
        toolRuns += 1;
        throw scenario.hostileTool();
      },
    },
    hostile_value: {
      execute: () => {
        toolRuns += 1;
        return { value: scenario.hostileTool(), secret: SECRET };
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

/** A reply given as `{ thunk }` is made fresh at each call (see `hostile`). */
function unthunk(reply: unknown): unknown {
  if (typeof reply === "object" && reply !== null && "thunk" in reply)
    return (reply as { thunk: () => unknown }).thunk();
  return reply;
}

const STATUSES = ["completed", "failed", "budget_exceeded", "cancelled", "blocked"];
const settings = { numRuns: 200 };
/** A timeout only so that a hang fails: these runs take seconds on a loaded machine. */
const HANG_GUARD_MS = 120_000;
/** Enough runs that each hostile value meets each kind of step many times. */
const manyRuns = { numRuns: 2_000 };

describe("runAgent over random scripts", () => {
  it(
    "always resolves, with one of the five statuses",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { result } = await runScenario(s);
          expect(STATUSES).toContain(result.status);
        }),
        manyRuns,
      );
    },
    HANG_GUARD_MS,
  );

  it(
    "never calls the provider more than maxSteps times",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { providerCalls } = await runScenario(s);
          expect(providerCalls).toBeLessThanOrEqual(s.limits.maxSteps);
        }),
        settings,
      );
    },
    HANG_GUARD_MS,
  );

  it(
    "counts as steps exactly the provider calls that returned a valid reply",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { result, validReplies } = await runScenario(s);
          expect(result.steps).toBe(validReplies);
        }),
        settings,
      );
    },
    HANG_GUARD_MS,
  );

  it(
    "never calls the provider once the signal has fired",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { callsAfterAbort, providerCalls } = await runScenario(s);
          expect(callsAfterAbort).toBe(0);
          if (s.preAborted) expect(providerCalls).toBe(0);
        }),
        settings,
      );
    },
    HANG_GUARD_MS,
  );

  it(
    "counts every tool that ran, and never more than maxToolCalls",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { result, toolRuns } = await runScenario(s);
          expect(result.toolCalls).toBe(toolRuns);
          if (s.limits.maxToolCalls !== undefined)
            expect(toolRuns).toBeLessThanOrEqual(s.limits.maxToolCalls);
        }),
        settings,
      );
    },
    HANG_GUARD_MS,
  );

  it(
    "ends every trace with exactly one run_finished, in strictly increasing seq order",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { result, events } = await runScenario(s);
          expect(events.filter((event) => event.type === "run_finished")).toHaveLength(1);
          expect(events.at(-1)).toMatchObject({ type: "run_finished", status: result.status });
          expect(
            events.every(
              (event, index) => index === 0 || event.seq > (events[index - 1]?.seq ?? 0),
            ),
          ).toBe(true);
        }),
        settings,
      );
    },
    HANG_GUARD_MS,
  );

  it(
    "pairs every started model call and tool with its completion",
    async () => {
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
    },
    HANG_GUARD_MS,
  );

  it(
    "pairs every recorded tool call with a tool result of the same callId",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { result } = await runScenario(s);
          const calls = result.messages.flatMap((m) =>
            m.role === "assistant" && m.type === "tool_call" ? [m.callId] : [],
          );
          const results = result.messages.flatMap((m) => (m.role === "tool" ? [m.callId] : []));
          expect(results).toEqual(calls);
          expect(new Set(calls).size).toBe(calls.length);
        }),
        settings,
      );
    },
    HANG_GUARD_MS,
  );

  it(
    "never lets a secret out, through the result, the history or the trace",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const { result, events } = await runScenario(s);
          const everything = JSON.stringify({ ...result, messages: [...result.messages], events });
          expect(everything).not.toContain(SECRET.slice(-16));
        }),
        settings,
      );
    },
    HANG_GUARD_MS,
  );
});
