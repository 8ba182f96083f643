/** `sameAction`: the by-value comparison behind repeat detection, case by case. */
import { describe, expect, it } from "vitest";
import type { Action } from "../src/action.ts";
import { sameAction } from "../src/action.ts";

const call = (input: unknown, extra: object = {}) =>
  ({ type: "tool_call", tool: "read_file", input, ...extra }) as unknown as Action;
const message = (content: string) => ({ type: "message", content }) as Action;
const finish = (summary: string) => ({ type: "finish", summary }) as Action;

describe("sameAction", () => {
  it.each([
    ["the same message", message("a"), message("a")],
    ["the same finish", finish("done"), finish("done")],
    [
      "the same call, keys in another order",
      call({ a: 1, b: [1, { c: 2 }] }),
      call({ b: [1, { c: 2 }], a: 1 }),
    ],
    [
      "the same call under another call id",
      call({ a: 1 }, { callId: "c1" }),
      call({ a: 1 }, { callId: "c2" }),
    ],
  ])("holds for %s", (_, a, b) => {
    expect(sameAction(a, b)).toBe(true);
  });

  it.each([
    ["two messages", message("a"), message("b")],
    ["two finishes", finish("done"), finish("not done")],
    ["a message and a finish", message("x"), finish("x")],
    ["calls of two tools", call({ a: 1 }), { ...call({ a: 1 }), tool: "list_files" } as Action],
    ["calls with another input error", call({}, { inputError: "bad" }), call({})],
    ["a value and an object", call({ a: 1 }), call({ a: { v: 1 } })],
    ["null and an object", call({ a: null }), call({ a: {} })],
    ["a list and an object of its indices", call({ a: [1] }), call({ a: { 0: 1 } })],
    ["objects with a key more", call({ a: 1 }), call({ a: 1, b: 2 })],
    ["objects with other keys", call({ a: 1 }), call({ b: 1 })],
    ["lists of two lengths", call({ a: [1] }), call({ a: [1, 2] })],
    ["two texts", call({ a: "x" }), call({ a: "y" })],
  ])("fails for %s, either way round", (_, a, b) => {
    expect(sameAction(a, b)).toBe(false);
    expect(sameAction(b, a)).toBe(false);
  });
});
