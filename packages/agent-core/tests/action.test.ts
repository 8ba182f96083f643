import { describe, expect, it } from "vitest";
import { type Action, canonicalJson, fingerprintAction, parseAction } from "../src/action.ts";

function valid(reply: unknown): Action {
  const parsed = parseAction(reply);
  if (!parsed.ok) throw new Error(`expected a valid action: ${parsed.reason}`);
  return parsed.action;
}

function reason(reply: unknown): string {
  const parsed = parseAction(reply);
  if (parsed.ok) throw new Error("expected an invalid action");
  return parsed.reason;
}

describe("parseAction", () => {
  it("accepts a message", () => {
    expect(valid({ type: "message", content: "thinking" })).toEqual({
      type: "message",
      content: "thinking",
    });
  });

  it("accepts a tool_call with and without a callId", () => {
    expect(valid({ type: "tool_call", tool: "echo", input: { text: "hi" } })).toEqual({
      type: "tool_call",
      tool: "echo",
      input: { text: "hi" },
    });
    expect(valid({ type: "tool_call", tool: "echo", input: {}, callId: "c1" })).toMatchObject({
      callId: "c1",
    });
  });

  it("accepts a finish", () => {
    expect(valid({ type: "finish", summary: "done" })).toEqual({ type: "finish", summary: "done" });
  });

  it.each([null, undefined, "finish", 42, [{ type: "finish", summary: "x" }]])(
    "rejects a reply that is not an object (%s)",
    (reply) => {
      expect(reason(reply)).toContain("模型回复必须是对象");
    },
  );

  it("rejects an unknown type and lists the valid ones", () => {
    const text = reason({ type: "shell", command: "rm -rf /" });
    expect(text).toContain('"shell"');
    expect(text).toContain("message、tool_call、finish");
  });

  it("rejects a missing type", () => {
    expect(reason({ content: "hi" })).toContain("未知的动作类型 undefined");
  });

  it("names the field of a malformed tool_call", () => {
    expect(reason({ type: "tool_call", tool: "echo" })).toContain("input");
    expect(reason({ type: "tool_call", tool: "", input: {} })).toContain("tool");
  });

  it("rejects extra keys", () => {
    expect(reason({ type: "finish", summary: "x", confidence: 0.9 })).toContain("confidence");
  });

  it("rejects tool input that is not JSON", () => {
    expect(reason({ type: "tool_call", tool: "echo", input: { at: () => 1 } })).toContain("input");
  });

  it("returns a reason instead of throwing for a cyclic input", () => {
    const input: Record<string, unknown> = {};
    input.self = input;
    expect(parseAction({ type: "tool_call", tool: "echo", input }).ok).toBe(false);
  });
});

describe("fingerprintAction", () => {
  const call = (input: Record<string, unknown>, callId?: string) =>
    valid({
      type: "tool_call",
      tool: "read_file",
      input,
      ...(callId === undefined ? {} : { callId }),
    });

  it("is the same for reordered keys at every depth", () => {
    const a = call({ path: "a.ts", range: { from: 1, to: 9 } });
    const b = call({ range: { to: 9, from: 1 }, path: "a.ts" });
    expect(fingerprintAction(a)).toBe(fingerprintAction(b));
  });

  it("ignores the callId", () => {
    expect(fingerprintAction(call({ path: "a.ts" }, "c1"))).toBe(
      fingerprintAction(call({ path: "a.ts" }, "c2")),
    );
  });

  it("differs for a different input", () => {
    expect(fingerprintAction(call({ path: "a.ts" }))).not.toBe(
      fingerprintAction(call({ path: "b.ts" })),
    );
  });

  it("differs for a different tool with the same input", () => {
    const other = valid({ type: "tool_call", tool: "list_files", input: { path: "a.ts" } });
    expect(fingerprintAction(call({ path: "a.ts" }))).not.toBe(fingerprintAction(other));
  });

  it("differs for calls whose unreadable arguments differ, even with the same empty input", () => {
    const unreadable = (inputError: string) =>
      valid({ type: "tool_call", tool: "echo", input: {}, inputError });
    expect(fingerprintAction(unreadable("{a:"))).not.toBe(fingerprintAction(unreadable("{b:")));
    expect(fingerprintAction(unreadable("{a:"))).not.toBe(fingerprintAction(call({})));
  });

  it("differs between a message and a finish with the same text", () => {
    expect(fingerprintAction({ type: "message", content: "x" })).not.toBe(
      fingerprintAction({ type: "finish", summary: "x" }),
    );
  });

  it("keeps array order significant", () => {
    expect(fingerprintAction(call({ paths: ["a", "b"] }))).not.toBe(
      fingerprintAction(call({ paths: ["b", "a"] })),
    );
  });
});

describe("fingerprintAction's text", () => {
  it.each([
    { type: "message", content: 'a "quoted" 文本' },
    { type: "finish", summary: "done\n" },
    { type: "tool_call", tool: "t", input: { b: [1, { d: null, c: "x" }], a: true } },
    { type: "tool_call", tool: "t", input: {}, inputError: "not JSON" },
  ] as const)("is canonicalJson of the action without its callId ($type)", (action) => {
    const withId = { ...action, ...(action.type === "tool_call" ? { callId: "c9" } : {}) };
    expect(fingerprintAction(valid(withId))).toBe(canonicalJson(action as never));
  });

  it("separates array items, so [1,23] and [12,3] differ", () => {
    const call = (items: number[]) => valid({ type: "tool_call", tool: "t", input: { items } });
    expect(fingerprintAction(call([1, 23]))).not.toBe(fingerprintAction(call([12, 3])));
    expect(canonicalJson([1, 23])).toBe("[1,23]");
  });

  it("keeps null inside an input", () => {
    const action = valid({ type: "tool_call", tool: "t", input: { a: null, b: [null] } });
    expect(fingerprintAction(action)).toBe(
      '{"input":{"a":null,"b":[null]},"tool":"t","type":"tool_call"}',
    );
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every depth and keeps arrays in order", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});
