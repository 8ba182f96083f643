/**
 * The direct checks that spare a run zod's cost (a plainly valid task, limits, model
 * response) must give exactly what the schema gives, and leave everything else to it;
 * the value comparison of repeated actions must agree with their fingerprints. Random
 * values, valid and nearly valid, hold each to that, and hostile values must still take
 * the slow path's answer.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type Action,
  ActionSchema,
  fingerprintAction,
  parseAction,
  sameAction,
} from "../src/action.ts";
import { runAgent } from "../src/agent-loop.ts";
import {
  createLoopGuard,
  guardOfRun,
  LIMIT_MINIMUMS,
  type Limits,
  LimitsSchema,
  parseLimits,
} from "../src/loop-guard.ts";
import { createRunHistory, type Message } from "../src/messages.ts";
import { ModelResponseSchema, parseModelResponse } from "../src/provider.ts";
import { parseTask, TaskSchema } from "../src/task.ts";
import { createScriptedProvider } from "../src/testing/index.ts";

/** Values a field may wrongly hold, next to the right ones. */
const odd = fc.constantFrom<unknown>(
  undefined,
  null,
  0,
  -1,
  1.5,
  Number.NaN,
  2 ** 53,
  "",
  "  ",
  [],
  {},
  new Date(0),
);

/** A record built from optional fields, sometimes with an extra key or another prototype. */
function objectLike(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const record = fc.record(fields, { requiredKeys: [] });
  return fc.oneof(
    { weight: 6, arbitrary: record },
    { weight: 1, arbitrary: fc.tuple(record, odd).map(([value, extra]) => ({ ...value, extra })) },
    {
      weight: 1,
      arbitrary: record.map((value) => Object.assign(Object.create(null), value) as unknown),
    },
    {
      weight: 1,
      arbitrary: record.map((value) => Object.assign(new (class Task {})(), value) as unknown),
    },
    { weight: 1, arbitrary: odd },
  );
}

const text = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("修复测试", " padded ", "g", "\tx\n") },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
  { weight: 1, arbitrary: odd },
);
const count = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 5 }) },
  { weight: 1, arbitrary: odd },
);

const taskLike = objectLike({
  goal: text,
  workspace: text,
  constraints: fc.oneof(fc.array(text, { maxLength: 3 }), odd),
  budgets: fc.oneof(fc.record({ maxSteps: count }, { requiredKeys: [] }), odd),
});

const limitsLike = objectLike(
  Object.fromEntries(LIMIT_MINIMUMS.map(([key]) => [key, count])) as Record<
    string,
    fc.Arbitrary<unknown>
  >,
);

const responseLike = objectLike({
  action: fc.oneof(fc.constant({ type: "finish", summary: "x" }), odd),
  actions: fc.oneof(fc.constant([{ type: "message", content: "x" }]), odd),
  usage: objectLike({ inputTokens: count, outputTokens: count }),
});

describe("parseTask's direct check", () => {
  it("gives what TaskSchema gives, with the keys in the same order (3,000 random tasks)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(taskLike, (input) => {
        const schema = TaskSchema.safeParse(input);
        const parsed = parseTask(input);
        expect(parsed.ok).toBe(schema.success);
        if (!parsed.ok || !schema.success) return;
        accepted += 1;
        expect(parsed.task).toStrictEqual(schema.data);
        expect(Object.keys(parsed.task)).toEqual(Object.keys(schema.data));
      }),
      { numRuns: 3_000 },
    );
    // About half the usual count (~450 of 3,000): every run draws new values.
    expect(accepted, "not vacuous: many random tasks are valid").toBeGreaterThan(200);
  });

  it("copies the task: the caller's constraints array is not the one returned", () => {
    const constraints = ["只改 src/"];
    const parsed = parseTask({ goal: "g", constraints });
    expect(parsed.ok && parsed.task.constraints).toEqual(constraints);
    expect(parsed.ok && parsed.task.constraints).not.toBe(constraints);
  });

  it.each([
    ["an extra key", { goal: "g", extra: 1 }],
    ["an undefined workspace", { goal: "g", workspace: undefined }],
    ["a blank constraint", { goal: "g", constraints: ["a", " "] }],
    ["a workspace that is a number", { goal: "g", workspace: 1 }],
  ])("leaves %s to the schema, whose answer stands", (_, input) => {
    const schema = TaskSchema.safeParse(input);
    const parsed = parseTask(input);
    expect(parsed.ok).toBe(schema.success);
    if (parsed.ok && schema.success) expect(parsed.task).toStrictEqual(schema.data);
  });
});

describe("parseLimits' direct check", () => {
  it("gives what LimitsSchema gives, with the keys in the same order (3,000 random limits)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(limitsLike, (input) => {
        const schema = LimitsSchema.safeParse(input);
        let parsed: Limits | undefined;
        try {
          parsed = parseLimits(input);
        } catch {
          parsed = undefined;
        }
        expect(parsed !== undefined).toBe(schema.success);
        if (parsed === undefined || !schema.success) return;
        accepted += 1;
        expect(parsed).toStrictEqual(schema.data);
        expect(Object.keys(parsed)).toEqual(Object.keys(schema.data));
        expect(parsed, "a copy, never the caller's object").not.toBe(input);
      }),
      { numRuns: 3_000 },
    );
    expect(accepted, "not vacuous: many random limits are valid").toBeGreaterThan(100);
  });

  it("lists every limit of the schema, in its order, with the schema's minimum", () => {
    expect(LIMIT_MINIMUMS.map(([key]) => key)).toEqual(Object.keys(LimitsSchema.shape));
    for (const [key, minimum] of LIMIT_MINIMUMS) {
      const at = { maxSteps: 1, [key]: minimum };
      const below = { maxSteps: 1, [key]: minimum - 1 };
      expect(LimitsSchema.safeParse(at).success, key).toBe(true);
      expect(LimitsSchema.safeParse(below).success, key).toBe(false);
      expect(parseLimits(at), key).toStrictEqual(at);
      expect(() => parseLimits(below), key).toThrow(/^invalid limits: /);
    }
  });

  it("leaves an undefined optional limit to the schema, which keeps it", () => {
    expect(parseLimits({ maxSteps: 2, maxTokens: undefined })).toStrictEqual({
      maxSteps: 2,
      maxTokens: undefined,
    });
  });
});

describe("parseModelResponse's direct check", () => {
  it("gives what ModelResponseSchema gives (3,000 random responses)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(responseLike, (input) => {
        const schema = ModelResponseSchema.safeParse(input);
        const parsed = parseModelResponse(input);
        expect(parsed.ok).toBe(schema.success);
        if (!parsed.ok || !schema.success) return;
        accepted += 1;
        expect(parsed.response).toEqual(schema.data);
      }),
      { numRuns: 3_000 },
    );
    // About half the usual count (~320 of 3,000): every run draws new values.
    expect(accepted, "not vacuous: many random responses are valid").toBeGreaterThan(150);
  });

  it("reads each field of a reply once, and copies the usage", () => {
    const reads: string[] = [];
    const usage = { inputTokens: 3, outputTokens: 4 };
    const reply = new Proxy(
      { action: { type: "finish", summary: "x" }, usage },
      {
        get(target, key, receiver) {
          reads.push(String(key));
          return Reflect.get(target, key, receiver);
        },
      },
    );
    const parsed = parseModelResponse(reply);
    expect(parsed).toEqual({
      ok: true,
      response: { action: { type: "finish", summary: "x" }, usage },
    });
    expect(parsed.ok && parsed.response.usage).not.toBe(usage);
    expect(reads.filter((key) => key === "action")).toHaveLength(1);
  });

  it.each([
    [
      "a Proxy whose get throws",
      new Proxy(
        {},
        {
          get() {
            throw new Error("boom");
          },
        },
      ),
      "Provider 返回的值无法读取：boom",
    ],
    [
      "a throwing action getter",
      Object.defineProperty({}, "action", {
        enumerable: true,
        get() {
          throw new Error("getter");
        },
      }),
      "Provider 返回的值无法读取：getter",
    ],
  ])("answers %s with a reason, never a throw", (_, reply, reason) => {
    expect(parseModelResponse(reply)).toEqual({ ok: false, reason });
  });

  it("answers a revoked Proxy with a reason, never a throw", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const parsed = parseModelResponse(proxy);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.reason).toMatch(/^Provider 返回的值无法读取：/);
  });
});

describe("sameAction", () => {
  const json = fc.letrec<{ value: unknown }>((self) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom<unknown>("a", "b", 1, -0, 0, true, null),
      fc.array(self("value"), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom("x", "y", "__proto__"), self("value"), { maxKeys: 2 }),
    ),
  })).value;
  const input = fc.dictionary(fc.constantFrom("x", "y", "z"), json, { maxKeys: 3 });
  const action: fc.Arbitrary<Action> = fc.oneof(
    fc.constantFrom("a", "b").map((content) => ({ type: "message" as const, content })),
    fc.constantFrom("a", "b").map((summary) => ({ type: "finish" as const, summary })),
    fc
      .record(
        {
          tool: fc.constantFrom("echo", "read"),
          input,
          callId: fc.constantFrom("c1", "c2"),
          inputError: fc.constantFrom("bad", "worse"),
        },
        { requiredKeys: ["tool", "input"] },
      )
      .map((fields) => ({ type: "tool_call", ...fields }) as Action),
  );
  /** The same action with its input's keys in reverse order, at every depth. */
  const reordered = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) return value.map(reordered);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).reverse()) {
      Object.defineProperty(out, key, {
        value: reordered((value as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };

  it("is true exactly when the fingerprints are equal (5,000 random pairs)", () => {
    let same = 0;
    const pair = fc.oneof(
      fc.tuple(action, action),
      action.map((a) => [a, reordered(a) as Action] as const),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const expected = fingerprintAction(a) === fingerprintAction(b);
        if (expected) same += 1;
        expect(sameAction(a, b)).toBe(expected);
        expect(sameAction(b, a)).toBe(expected);
      }),
      { numRuns: 5_000 },
    );
    expect(same, "not vacuous: many pairs are the same action").toBeGreaterThan(1_000);
  });

  it("agrees with the fingerprints on inputs that differ in one small value (5,000 pairs)", () => {
    const small = fc.constantFrom<unknown>(1, 2, 0, -0, null, "a", "1", true, {}, [], [1], [1, 2], {
      x: 1,
    });
    const tiny: fc.Arbitrary<Action> = fc
      .dictionary(fc.constantFrom("x", "y"), small, { maxKeys: 2 })
      .map((input) => ({ type: "tool_call", tool: "t", input }) as Action);
    let same = 0;
    fc.assert(
      fc.property(tiny, tiny, (a, b) => {
        const expected = fingerprintAction(a) === fingerprintAction(b);
        if (expected) same += 1;
        expect(sameAction(a, b)).toBe(expected);
      }),
      { numRuns: 5_000 },
    );
    expect(same, "not vacuous: many pairs are the same action").toBeGreaterThan(100);
  });

  it("tells an array from an object with index keys, and a missing key from another", () => {
    const call = (value: Record<string, never>) =>
      ({ type: "tool_call", tool: "t", input: value }) as unknown as Action;
    expect(sameAction(call({ a: [1] } as never), call({ a: { 0: 1 } } as never))).toBe(false);
    expect(sameAction(call({ a: { 0: 1 } } as never), call({ a: [1] } as never))).toBe(false);
    expect(sameAction(call({ a: 1 } as never), call({ b: 1 } as never))).toBe(false);
    expect(sameAction(call({ a: [1, 2] } as never), call({ a: [1] } as never))).toBe(false);
    expect(sameAction(call({ a: [1, 2] } as never), call({ a: [1, 3] } as never))).toBe(false);
  });
});

describe("a run's guard compares actions by value", () => {
  const action: fc.Arbitrary<Action> = fc.oneof(
    fc.constantFrom("a", "b").map((content) => ({ type: "message" as const, content })),
    fc
      .tuple(fc.constantFrom("echo", "read"), fc.constantFrom("c1", "c2"), fc.boolean())
      .map(([tool, callId, flip]) => ({
        type: "tool_call" as const,
        tool,
        callId,
        input: flip ? { a: 1, b: [true] } : { b: [true], a: 1 },
      })),
  );
  const reply = fc.oneof(
    { weight: 3, arbitrary: action },
    { weight: 1, arbitrary: fc.array(action, { minLength: 1, maxLength: 2 }) },
  );

  it("and stops exactly where the fingerprint guard stops (2,000 random runs)", () => {
    fc.assert(
      fc.property(
        fc.array(reply, { maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        (replies, maxRepeatedActions) => {
          const limits = { maxSteps: 100, maxRepeatedActions };
          const byValue = guardOfRun(limits, () => 0);
          const byFingerprint = createLoopGuard(limits, { clock: () => 0 });
          for (const recorded of replies) {
            expect(byValue.recordAction(recorded)).toEqual(byFingerprint.recordAction(recorded));
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("takes a list and a single action for different replies", () => {
    const say = { type: "message", content: "a" } as const;
    const guard = guardOfRun({ maxSteps: 10, maxRepeatedActions: 1 }, () => 0);
    expect(guard.recordAction(say).stop).toBe(false);
    expect(guard.recordAction([say]).stop).toBe(false);
    expect(guard.recordAction(say).stop).toBe(false);
    expect(guard.recordAction(say)).toMatchObject({ stop: true, code: "repeated_action" });
  });
});

describe("a run's history", () => {
  it("freezes a flat message itself, without walking into it", () => {
    const history = createRunHistory();
    const input = { nested: { a: 1 } };
    const message: Message = {
      role: "assistant",
      type: "tool_call",
      callId: "c",
      tool: "t",
      input,
    };
    history.appendFlat(message);
    expect(Object.isFrozen(message)).toBe(true);
    expect(history.view()[0]).toBe(message);
    // The caller promises the parts are frozen already; appendFlat does not check.
    expect(Object.isFrozen(input)).toBe(false);
  });

  it("holds only deeply frozen messages after a run of every kind of step", async () => {
    const reply = {
      type: "tool_call",
      tool: "echo",
      input: { text: "hi", nested: { list: [1, { deep: true }] } },
    };
    const provider = createScriptedProvider([
      { action: { type: "message", content: "thinking" } },
      { action: reply },
      { action: { type: "tool_call", tool: "fail", input: {} } },
      { action: { type: "finish", summary: "done" } },
    ]);
    const result = await runAgent(
      "g",
      provider,
      {
        echo: { execute: (value) => value.text },
        fail: {
          execute: () => ({
            ok: false,
            error: { code: "nope", message: "no", issues: [{ path: "a", message: "b" }] },
          }),
        },
      },
      { maxSteps: 10 },
    );
    expect(result.status).toBe("completed");
    const unfrozen: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (typeof value !== "object" || value === null) return;
      if (!Object.isFrozen(value)) unfrozen.push(path);
      for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
    };
    result.messages.forEach((message, index) => {
      walk(message, `messages[${index}]`);
    });
    expect(unfrozen).toEqual([]);
    expect(result.messages).toHaveLength(7);
    // The recorded input is the run's own copy: the caller's reply is neither kept nor frozen.
    const recorded = result.messages[2] as { input: unknown };
    expect(recorded.input).toEqual(reply.input);
    expect(recorded.input).not.toBe(reply.input);
    expect(Object.isFrozen(reply.input)).toBe(false);
  });
});

describe("which values take the direct path, and which the schema's", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Whether `parse(value)` asked the schema. */
  function askedSchema(schema: { safeParse: unknown }, parse: () => unknown): boolean {
    const spy = vi.spyOn(schema as { safeParse: (value: unknown) => unknown }, "safeParse");
    try {
      parse();
    } catch {
      // A rejected value throws (parseLimits): what matters here is the path it took.
    }
    const asked = spy.mock.calls.length > 0;
    spy.mockRestore();
    return asked;
  }

  class Plain {
    goal = "g";
  }

  it.each<[string, unknown]>([
    ["a goal", { goal: " g " }],
    ["a goal and a workspace", { goal: "g", workspace: " repo " }],
    ["a goal and constraints", { goal: "g", constraints: [" a ", "b"] }],
    ["a goal and no constraints", { goal: "g", constraints: [] }],
    ["all three", { goal: "g", workspace: "w", constraints: ["a"] }],
  ])("parseTask takes %s without the schema", (_, task) => {
    expect(askedSchema(TaskSchema, () => parseTask(task))).toBe(false);
  });

  it.each<[string, unknown]>([
    ["budgets", { goal: "g", budgets: { maxSteps: 1 } }],
    ["an extra key", { goal: "g", extra: 1 }],
    ["an undefined workspace", { goal: "g", workspace: undefined }],
    ["an undefined goal", { goal: undefined }],
    ["a blank goal", { goal: "  " }],
    ["a goal that is a number", { goal: 1 }],
    ["a blank workspace", { goal: "g", workspace: " " }],
    ["a workspace that is a number", { goal: "g", workspace: 1 }],
    ["constraints that are not an array", { goal: "g", constraints: "a" }],
    ["a constraint that is a number", { goal: "g", constraints: ["a", 1] }],
    ["a blank constraint", { goal: "g", constraints: ["a", " "] }],
    ["a class instance", new Plain()],
    ["an object without a prototype", Object.assign(Object.create(null), { goal: "g" })],
    ["null", null],
    ["a text", "g"],
  ])("parseTask leaves %s to the schema", (_, task) => {
    expect(askedSchema(TaskSchema, () => parseTask(task))).toBe(true);
  });

  it.each<[string, unknown]>([
    ["maxSteps alone", { maxSteps: 0 }],
    ["every limit at its minimum", Object.fromEntries(LIMIT_MINIMUMS)],
    ["the bench's limits", { maxSteps: 10, maxRepeatedActions: 2, maxToolCalls: 10 }],
  ])("parseLimits takes %s without the schema", (_, limits) => {
    expect(askedSchema(LimitsSchema, () => parseLimits(limits))).toBe(false);
  });

  it.each<[string, unknown]>([
    ["no maxSteps", { maxTokens: 1 }],
    ["an undefined optional limit", { maxSteps: 1, maxTokens: undefined }],
    ["an unknown key", { maxSteps: 1, maxStep: 2 }],
    ["a limit below its minimum", { maxSteps: 1, toolTimeoutMs: 0 }],
    ["a fraction", { maxSteps: 1.5 }],
    ["a number past the safe integers", { maxSteps: 2 ** 53 }],
    ["a text", { maxSteps: "1" }],
    ["a class instance", Object.assign(new Plain(), { maxSteps: 1 })],
    ["an object without a prototype", Object.assign(Object.create(null), { maxSteps: 1 })],
    ["null", null],
    ["a number", 5],
  ])("parseLimits leaves %s to the schema", (_, limits) => {
    expect(askedSchema(LimitsSchema, () => parseLimits(limits))).toBe(true);
  });

  const finish = { type: "finish", summary: "x" };

  it.each<[string, unknown]>([
    ["an action", { action: finish }],
    ["an action and another key", { action: finish, note: 1 }],
    ["an action and zero usage", { action: finish, usage: { inputTokens: 0, outputTokens: 0 } }],
    ["a class instance", Object.assign(new Plain(), { action: finish })],
  ])("parseModelResponse takes %s without the schema", (_, response) => {
    expect(askedSchema(ModelResponseSchema, () => parseModelResponse(response))).toBe(false);
  });

  it.each<[string, unknown]>([
    ["actions", { actions: [finish] }],
    ["both action and actions", { action: finish, actions: [finish] }],
    ["no action", {}],
    ["an array", [finish]],
    ["null", null],
    ["a text", "finish"],
    ["usage that is null", { action: finish, usage: null }],
    ["usage that is a number", { action: finish, usage: 1 }],
    ["usage of a class", { action: finish, usage: Object.assign(new Plain(), { inputTokens: 1 }) }],
    ["usage with a fraction", { action: finish, usage: { inputTokens: 1.5, outputTokens: 0 } }],
    ["usage below zero", { action: finish, usage: { inputTokens: 0, outputTokens: -1 } }],
    [
      "usage with an extra key",
      { action: finish, usage: { inputTokens: 1, outputTokens: 1, total: 2 } },
    ],
    ["usage missing a count", { action: finish, usage: { inputTokens: 1 } }],
  ])("parseModelResponse leaves %s to the schema", (_, response) => {
    expect(askedSchema(ModelResponseSchema, () => parseModelResponse(response))).toBe(true);
  });

  it.each<[string, unknown]>([
    ["a message", { type: "message", content: "x" }],
    ["a finish", finish],
    ["a tool call", { type: "tool_call", tool: "echo", input: { text: "m1", n: [1, null] } }],
    [
      "a tool call with every field",
      { type: "tool_call", tool: "t", input: {}, callId: "c", inputError: "e" },
    ],
  ])("parseAction takes %s without the schema", (_, reply) => {
    expect(askedSchema(ActionSchema, () => parseAction(reply))).toBe(false);
  });

  it.each<[string, unknown]>([
    ["an empty inputError", { type: "tool_call", tool: "t", input: {}, inputError: "" }],
    ["an unknown key", { type: "tool_call", tool: "t", input: {}, extra: 1 }],
  ])("parseAction leaves %s to the schema", (_, reply) => {
    expect(askedSchema(ActionSchema, () => parseAction(reply))).toBe(true);
  });
});

describe("a guard's memory of the last action", () => {
  const call = (x: number) => ({ type: "tool_call" as const, tool: "t", input: { x } });

  it("is a fingerprint for createLoopGuard: changing a recorded action later changes nothing", () => {
    const guard = createLoopGuard({ maxSteps: 10, maxRepeatedActions: 1 });
    const first = call(1);
    guard.recordAction(first);
    first.input.x = 2;
    expect(guard.recordAction(call(2)).stop).toBe(false);
    expect(guard.recordAction(call(2)).stop).toBe(true);
  });

  it("is the action itself for a run's guard, whose actions are frozen once recorded", () => {
    const guard = guardOfRun({ maxSteps: 10, maxRepeatedActions: 1 }, () => 0);
    const first = call(1);
    guard.recordAction(first);
    first.input.x = 2;
    expect(guard.recordAction(call(2)).stop).toBe(true);
  });
});
