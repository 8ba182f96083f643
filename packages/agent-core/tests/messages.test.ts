import { describe, expect, it } from "vitest";
import { deepFreeze } from "../src/deep-freeze.ts";
import { createHistory, isHistoryView, type Message } from "../src/messages.ts";

const user = (content: string): Message => ({ role: "user", content });

describe("createHistory", () => {
  it("returns a view that behaves like a read-only array", () => {
    const history = createHistory();
    history.append(user("a"));
    history.append({ role: "assistant", type: "message", content: "b" });
    const view = history.view();
    expect(Array.isArray(view)).toBe(true);
    expect(view).toHaveLength(2);
    expect(view.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect([...view]).toEqual([user("a"), { role: "assistant", type: "message", content: "b" }]);
    expect(JSON.parse(JSON.stringify(view))).toEqual([...view]);
    expect(view.at(-1)).toEqual({ role: "assistant", type: "message", content: "b" });
    expect(Object.keys(view)).toEqual(["0", "1"]);
  });

  it("fixes a view's length when it is taken, so later appends do not show through", () => {
    const history = createHistory();
    history.append(user("a"));
    const early = history.view();
    history.append(user("b"));
    expect(early).toHaveLength(1);
    expect(early[1]).toBeUndefined();
    expect(1 in early).toBe(false);
    expect(history.view()).toHaveLength(2);
  });

  it.each([
    ["push", (view: Message[]) => view.push(user("x"))],
    [
      "index assignment",
      (view: Message[]) => {
        view[0] = user("x");
      },
    ],
    [
      "length assignment",
      (view: Message[]) => {
        view.length = 0;
      },
    ],
    ["splice", (view: Message[]) => view.splice(0, 1)],
    ["sort", (view: Message[]) => view.sort()],
    [
      "delete",
      (view: Message[]) => {
        delete view[0];
      },
    ],
  ])("rejects %s on a view", (_name, change) => {
    const history = createHistory();
    history.append(user("a"));
    history.append(user("b"));
    expect(() => change(history.view() as Message[])).toThrow(TypeError);
    expect([...history.view()]).toEqual([user("a"), user("b")]);
  });

  it("freezes each message deeply when it is appended", () => {
    const history = createHistory();
    const call: Message = {
      role: "assistant",
      type: "tool_call",
      callId: "c",
      tool: "t",
      input: { nested: { n: 1 } },
    };
    history.append(call);
    const stored = history.view()[0];
    expect(Object.isFrozen(stored)).toBe(true);
    expect(
      stored?.role === "assistant" &&
        stored.type === "tool_call" &&
        Object.isFrozen(stored.input.nested),
    ).toBe(true);
  });

  it("marks its views so a recorder can keep them by reference", () => {
    const history = createHistory();
    expect(isHistoryView(history.view())).toBe(true);
    expect(isHistoryView([])).toBe(false);
    expect(isHistoryView(undefined)).toBe(false);
    expect(isHistoryView(null)).toBe(false);
    expect(isHistoryView("view")).toBe(false);
  });

  it("answers `in` for indexes below its length, array members and symbols, and nothing else", () => {
    const history = createHistory();
    history.append(user("a"));
    history.append(user("b"));
    const view = history.view();
    expect(0 in view).toBe(true);
    expect(1 in view).toBe(true);
    expect(2 in view).toBe(false);
    expect("-1" in view).toBe(false);
    expect("1.5" in view).toBe(false);
    expect("01" in view).toBe(false);
    expect("length" in view).toBe(true);
    expect("map" in view).toBe(true);
    expect(Symbol.iterator in view).toBe(true);
  });

  it("reads only canonical indexes as entries", () => {
    const history = createHistory();
    history.append(user("a"));
    history.append(user("b"));
    const view = history.view() as unknown as Record<string, unknown>;
    expect(view["1"]).toEqual(user("b"));
    expect(view["01"]).toBeUndefined();
    expect(view["1.0"]).toBeUndefined();
    expect(view["-1"]).toBeUndefined();
    expect(view[""]).toBeUndefined();
  });

  it("hides the first and the tenth entry appended after the view was taken", () => {
    const history = createHistory();
    const empty = history.view();
    history.append(user("0"));
    const one = history.view();
    for (let index = 1; index < 12; index += 1) history.append(user(String(index)));
    expect(empty[0]).toBeUndefined();
    expect(0 in empty).toBe(false);
    expect(one[9]).toBeUndefined();
    expect(9 in one).toBe(false);
    expect(one[0]).toEqual(user("0"));
    expect(history.view()[9]).toEqual(user("9"));
    expect(history.view()[11]).toEqual(user("11"));
  });

  it("describes its own keys as a fixed-length, read-only array would", () => {
    const history = createHistory();
    history.append(user("a"));
    const early = history.view();
    history.append(user("b"));
    expect(Reflect.ownKeys(early)).toEqual(["0", "length"]);
    expect(Object.getOwnPropertyDescriptor(early, "length")).toEqual({
      value: 1,
      writable: true,
      enumerable: false,
      configurable: false,
    });
    expect(Object.getOwnPropertyDescriptor(early, "0")).toEqual({
      value: user("a"),
      writable: false,
      enumerable: true,
      configurable: true,
    });
    expect(Object.getOwnPropertyDescriptor(early, "1")).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(early, Symbol.iterator)).toBeUndefined();
  });

  it.each([
    ["set", (view: object) => Reflect.set(view, "0", user("x"))],
    ["defineProperty", (view: object) => Reflect.defineProperty(view, "0", { value: user("x") })],
    ["deleteProperty", (view: object) => Reflect.deleteProperty(view, "0")],
    ["setPrototypeOf", (view: object) => Reflect.setPrototypeOf(view, null)],
    ["preventExtensions", (view: object) => Reflect.preventExtensions(view)],
  ])("throws from %s instead of answering false", (_name, change) => {
    const history = createHistory();
    history.append(user("a"));
    const view = history.view();
    expect(() => change(view)).toThrow(new TypeError("history views are read-only"));
    expect([...view]).toEqual([user("a")]);
    expect(Object.isExtensible(view)).toBe(true);
  });

  it("reports its length", () => {
    const history = createHistory();
    history.append(user("a"));
    expect(history.length).toBe(1);
  });
});

describe("deepFreeze", () => {
  it("freezes nested objects and arrays and returns the same object", () => {
    const value = { a: [{ b: 1 }] };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value.a[0])).toBe(true);
  });

  it("leaves primitives and null as they are", () => {
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze("text")).toBe("text");
    expect(deepFreeze(3)).toBe(3);
  });

  it("freezes plain data only: a function inside is not frozen", () => {
    const callback = () => 1;
    const value = deepFreeze({ callback });
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(callback)).toBe(false);
  });

  it("does not walk a subtree that is already frozen (appending frozen input stays O(1))", () => {
    let reads = 0;
    const frozen = Object.freeze({
      get inner() {
        reads += 1;
        return { open: true };
      },
    });
    const value = deepFreeze({ frozen });
    expect(value.frozen).toBe(frozen);
    expect(reads).toBe(0);
  });
});
