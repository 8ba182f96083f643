import { runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { capText, serializeResult, toStableJson, withSerializedResults } from "@lab";
import { describe, expect, it } from "vitest";

const MARKER = /\n…\[truncated: omitted (\d+) of (\d+) chars\]…\n/;

/** Serializes without letting an exception escape, so a failure is an assertion with a name. */
function serializeSafely(value: unknown, maxChars = 10_000): string {
  let text = "";
  expect(() => {
    text = serializeResult(value, { maxChars });
  }, "serializeResult 不应抛出异常").not.toThrow();
  return text;
}

/** toStableJson, with an exception turned into a failed assertion that says so. */
function stableSafely(value: unknown): string {
  let text = "";
  expect(() => {
    text = toStableJson(value);
  }, "toStableJson 不应抛出异常").not.toThrow();
  return text;
}

describe("toStableJson", () => {
  it("gives the same text for the same data built in a different key order", () => {
    const one = { b: 1, a: { d: [1, { f: 1, e: 2 }], c: 3 } };
    const two = { a: { c: 3, d: [1, { e: 2, f: 1 }] }, b: 1 };
    expect(toStableJson(one)).toBe('{"a":{"c":3,"d":[1,{"e":2,"f":1}]},"b":1}');
    expect(toStableJson(two)).toBe(toStableJson(one));
  });

  it.each([
    ["BigInt", { n: 12345678901234567890n }, '{"n":"12345678901234567890n"}'],
    ["undefined", { gone: undefined }, '{"gone":"[undefined]"}'],
    ["NaN and Infinity", [Number.NaN, Number.POSITIVE_INFINITY], '["NaN","Infinity"]'],
    ["a function", { run: function run() {} }, '{"run":"[Function run]"}'],
    ["a Map", new Map([["k", 1]]), '{"[Map]":[["k",1]]}'],
    ["a Set", new Set(["a"]), '{"[Set]":["a"]}'],
    ["a Date", new Date(0), '"1970-01-01T00:00:00.000Z"'],
  ])("renders %s explicitly", (_, value, expected) => {
    expect(stableSafely(value)).toBe(expected);
  });

  it("renders an Error with its name, message, own fields and cause", () => {
    const error = Object.assign(new Error("读不到", { cause: new TypeError("权限") }), {
      code: "EACCES",
    });
    expect(JSON.parse(stableSafely(error))).toEqual({
      cause: { message: "权限", name: "TypeError" },
      code: "EACCES",
      message: "读不到",
      name: "Error",
    });
  });
});

describe("serializeResult", () => {
  it("keeps a string as it is", () => {
    expect(serializeResult("第一行\n第二行", { maxChars: 100 })).toBe("第一行\n第二行");
  });

  it("marks a cycle instead of throwing", () => {
    const node: Record<string, unknown> = { name: "root" };
    node.self = node;
    node.children = [{ parent: node }];
    expect(serializeSafely(node)).toBe(
      '{"children":[{"parent":"[Circular]"}],"name":"root","self":"[Circular]"}',
    );
  });

  it("renders an object shared by two branches twice: sharing is not a cycle", () => {
    const shared = { v: 1 };
    expect(serializeSafely({ a: shared, b: [shared] })).toBe('{"a":{"v":1},"b":[{"v":1}]}');
  });

  it("marks a Map that contains itself", () => {
    const map = new Map<string, unknown>();
    map.set("me", map);
    expect(serializeSafely(map)).toBe('{"[Map]":[["me","[Circular]"]]}');
  });
});

describe("capText", () => {
  it("leaves a text within the cap untouched", () => {
    expect(capText("x".repeat(100), 100)).toBe("x".repeat(100));
  });

  it.each([64, 100, 333, 1_000])("never exceeds a cap of %i characters", (maxChars) => {
    expect(capText("y".repeat(50_000), maxChars).length).toBeLessThanOrEqual(maxChars);
  });

  it("keeps head and tail around a marker that says how much was cut, out of how much", () => {
    const text = `HEAD${"-".repeat(10_000)}TAIL`;
    const cut = capText(text, 200);
    const match = MARKER.exec(cut);
    expect(match, "截断后的文本里应当有标记").not.toBeNull();
    expect(cut.startsWith("HEAD")).toBe(true);
    expect(cut.endsWith("TAIL")).toBe(true);
    const kept = cut.length - (match?.[0].length ?? 0);
    expect(Number(match?.[2]), "标记里的原始长度").toBe(text.length);
    expect(Number(match?.[1]) + kept, "省略的 + 保留的 = 原始长度").toBe(text.length);
  });

  it("cuts only once: a cut text cut again is unchanged", () => {
    const once = capText("z".repeat(5_000), 300);
    expect(capText(once, 300)).toBe(once);
  });
});

describe("runAgent with serialized results", () => {
  it("shows the model this lesson's stable, bounded text and the run goes on", async () => {
    const node: Record<string, unknown> = { size: 3n, name: "report" };
    node.self = node;
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "inspect", input: {} } },
      { action: { type: "tool_call", tool: "dump", input: {} } },
      { action: { type: "finish", summary: "看完了" } },
    ]);
    const tools = withSerializedResults(
      { inspect: { execute: () => node }, dump: { execute: () => "d".repeat(5_000) } },
      { maxChars: 300 },
    );

    const result = await runAgent("检查报告", provider, tools, { maxSteps: 5 });

    expect(result.status, "循环引用和 BigInt 不应让运行失败").toBe("completed");
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      ok: true,
      content: '{"name":"report","self":"[Circular]","size":"3n"}',
    });
    const dumped = provider.requests[2]?.messages.at(-1);
    const content = dumped?.role === "tool" && dumped.ok ? dumped.content : "";
    expect(content.length, "超长结果应被截到上限以内").toBeLessThanOrEqual(300);
    expect(content).toMatch(MARKER);
  });
});
