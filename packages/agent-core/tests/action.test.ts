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

  it("returns a reason instead of throwing for a cyclic input, an array cycle or a cyclic reply", () => {
    const input: Record<string, unknown> = {};
    input.self = input;
    const cycle = "模型回复含有循环引用，不是 JSON";
    expect(reason({ type: "tool_call", tool: "echo", input })).toBe(cycle);
    const list: unknown[] = [];
    list.push(list);
    expect(reason({ type: "tool_call", tool: "echo", input: { list } })).toBe(cycle);
    const reply: Record<string, unknown> = { type: "finish", summary: "x" };
    reply.again = reply;
    expect(reason(reply)).toBe(cycle);
  });

  it("renders the same object twice when it is shared, not cyclic", () => {
    const shared = { n: 1 };
    expect(valid({ type: "tool_call", tool: "t", input: { a: shared, b: [shared] } })).toEqual({
      type: "tool_call",
      tool: "t",
      input: { a: { n: 1 }, b: [{ n: 1 }] },
    });
  });

  it("says what a reply that is not an object is", () => {
    expect(reason(null)).toBe("模型回复必须是对象，实际是 null");
    expect(reason(undefined)).toBe("模型回复必须是对象，实际是 undefined");
    expect(reason([])).toBe("模型回复必须是对象，实际是 数组");
    expect(reason(42)).toBe("模型回复必须是对象，实际是 number 42");
    expect(reason("x".repeat(41))).toBe(`模型回复必须是对象，实际是 "${"x".repeat(40)}…"`);
    expect(reason("x".repeat(40))).toBe(`模型回复必须是对象，实际是 "${"x".repeat(40)}"`);
  });

  it("names an unknown type exactly, objects included", () => {
    expect(reason({ type: "shell" })).toBe(
      '未知的动作类型 "shell"，可选：message、tool_call、finish',
    );
    expect(reason({ type: { name: "finish" } })).toBe(
      "未知的动作类型 对象，可选：message、tool_call、finish",
    );
    expect(reason({ type: true })).toBe(
      "未知的动作类型 boolean true，可选：message、tool_call、finish",
    );
  });

  it("turns a reply that cannot be read into a reason naming the error", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys for you");
        },
      },
    );
    expect(reason(hostile)).toBe("模型回复无法读取或校验：no keys for you");
  });

  it("returns a copy: changing the reply afterwards changes nothing", () => {
    const reply = { type: "tool_call", tool: "t", input: { path: "a", list: [1] } };
    const result = parseAction(reply);
    reply.input.path = "b";
    reply.input.list.push(2);
    reply.tool = "other";
    expect(result).toEqual({
      ok: true,
      action: { type: "tool_call", tool: "t", input: { path: "a", list: [1] } },
    });
  });

  it("accepts a reply without a prototype, and keeps a non-plain value inside for the schema to reject", () => {
    const bare = Object.assign(Object.create(null), { type: "finish", summary: "x" });
    expect(valid(bare)).toEqual({ type: "finish", summary: "x" });
    expect(reason({ type: "tool_call", tool: "t", input: { at: new Date(0) } })).toBe(
      "tool_call 动作无效：input.at: Invalid input",
    );
  });

  it("copies only a class instance's own data, so a getter cannot pass the check and answer differently later", () => {
    let reads = 0;
    class Shifty {
      readonly type = "tool_call";
      readonly input = {};
      get tool(): string {
        reads += 1;
        return reads === 1 ? "read_file" : "delete_everything";
      }
    }
    expect(reason(new Shifty())).toBe(
      "tool_call 动作无效：tool: Invalid input: expected string, received undefined",
    );
    expect(reads).toBe(0);
  });

  it("keeps a __proto__ key from JSON as an ordinary own data property, like every other key", () => {
    const action = valid(
      JSON.parse('{"type":"tool_call","tool":"t","input":{"__proto__":{"a":1},"b":2}}'),
    );
    const input = action.type === "tool_call" ? action.input : {};
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(input, "__proto__")).toEqual({
      value: { a: 1 },
      writable: true,
      enumerable: true,
      configurable: true,
    });
  });

  it("copies a plain object without a prototype inside the input too", () => {
    const bare: Record<string, unknown> = Object.create(null);
    bare.path = "a";
    const result = parseAction({ type: "tool_call", tool: "t", input: { bare } });
    bare.path = "b";
    expect(result).toEqual({
      ok: true,
      action: { type: "tool_call", tool: "t", input: { bare: { path: "a" } } },
    });
  });

  it("lists every problem of an action, separated by '；'", () => {
    expect(reason({ type: "tool_call", tool: "", input: 5 })).toMatch(
      /^tool_call 动作无效：tool: [^；]+；input: [^；]+$/,
    );
  });

  it("copies a class instance's own fields", () => {
    class Finish {
      readonly type = "finish";
      readonly summary = "own field";
    }
    expect(valid(new Finish())).toEqual({ type: "finish", summary: "own field" });
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

describe("fingerprintAction on a value that is no action", () => {
  it("throws a TypeError naming it (a programmer error, never a model's)", () => {
    expect(() => fingerprintAction({ type: "shell" } as never)).toThrow(
      new TypeError('unhandled action {"type":"shell"}'),
    );
  });
});

describe("canonicalJson", () => {
  it("leaves out undefined values as JSON.stringify does, wherever they are", () => {
    const value = { a: undefined, b: 1, c: undefined, d: { e: undefined } };
    expect(canonicalJson(value as never)).toBe('{"b":1,"d":{}}');
    expect(canonicalJson(value as never)).toBe(JSON.stringify(value));
  });

  it("sorts keys at every depth and keeps arrays in order", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});
