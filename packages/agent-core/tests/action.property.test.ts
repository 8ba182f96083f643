/**
 * `parseAction` accepts most replies by a direct check instead of the schema. The check
 * may only ever be stricter than `ActionSchema`: whatever it accepts, the schema accepts.
 * Random replies, valid and nearly valid, hold it to that.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ActionSchema, parseAction } from "../src/action.ts";

/** JSON-ish values with the awkward cases mixed in: NaN, infinities, undefined, classes. */
const leaf = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom<unknown>(
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    123n,
    Symbol("s"),
    new Date(0),
    new Map(),
    () => 1,
  ),
);
const { tree } = fc.letrec<{ tree: unknown }>((self) => ({
  tree: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(self("tree"), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor")),
      self("tree"),
      {
        maxKeys: 4,
      },
    ),
  ),
}));

const optional = { requiredKeys: ["type"] as ["type"] };
const text = fc.oneof({ weight: 3, arbitrary: fc.string() }, { weight: 1, arbitrary: tree });

/** Replies shaped like each action, each field sometimes wrong, missing or extra. */
const actionLike = fc.oneof(
  fc.record({ type: fc.constant("message"), content: text, extra: tree }, optional),
  fc.record({ type: fc.constant("finish"), summary: text, extra: tree }, optional),
  fc.record(
    {
      type: fc.constant("tool_call"),
      tool: text,
      input: fc.oneof(
        { weight: 3, arbitrary: fc.dictionary(fc.string(), tree, { maxKeys: 4 }) },
        { weight: 1, arbitrary: tree },
      ),
      callId: text,
      inputError: text,
      extra: tree,
    },
    optional,
  ),
  fc.record({ type: tree, content: text }, optional),
  tree,
);

/** An input `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? { k: value } : [value];
  return value;
}

describe("parseAction and ActionSchema", () => {
  it("accept exactly the same random replies (5,000 replies)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(actionLike, (reply) => {
        const parsed = parseAction(reply);
        expect(parsed.ok).toBe(ActionSchema.safeParse(reply).success);
        if (parsed.ok) accepted += 1;
      }),
      { numRuns: 5_000 },
    );
    // Not vacuous: a fair share of the random replies are valid.
    expect(accepted).toBeGreaterThan(100);
  });

  it.each([
    ["an extra key", { type: "message", content: "x", extra: 1 }],
    ["an empty tool name", { type: "tool_call", tool: "", input: {} }],
    ["a missing input", { type: "tool_call", tool: "echo" }],
    ["an input that is an array", { type: "tool_call", tool: "echo", input: [] }],
    ["NaN in the input", { type: "tool_call", tool: "echo", input: { n: Number.NaN } }],
    ["Infinity in the input", { type: "tool_call", tool: "echo", input: { n: Infinity } }],
    ["undefined in the input", { type: "tool_call", tool: "echo", input: { n: undefined } }],
    ["a Date in the input", { type: "tool_call", tool: "echo", input: { when: new Date(0) } }],
    ["an empty callId", { type: "tool_call", tool: "echo", input: {}, callId: "" }],
    ["a summary that is a number", { type: "finish", summary: 1 }],
  ])("rejects %s", (_, reply) => {
    expect(parseAction(reply).ok).toBe(false);
  });

  it("accepts a valid input 40 levels deep", () => {
    const reply = { type: "tool_call", tool: "echo", input: { deep: nested(40) } };
    expect(parseAction(reply)).toMatchObject({ ok: true });
  });

  it("accepts an undefined optional field", () => {
    const reply = { type: "tool_call", tool: "echo", input: {}, callId: undefined };
    expect(parseAction(reply).ok).toBe(true);
  });
});
