import { describe, expect, it } from "vitest";
import { createHistory, deepFreeze, isHistoryView, type Message } from "../src/messages.ts";

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
});
