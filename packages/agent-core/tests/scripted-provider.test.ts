import { getEventListeners } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { AbortError, ScriptExhaustedError, ScriptNotFinishedError } from "../src/errors.ts";
import { createHistory } from "../src/messages.ts";
import { createModelRequest, type ModelRequest } from "../src/provider.ts";
import { createScriptedProvider, ScriptSchema } from "../src/testing/index.ts";

const never = new AbortController().signal;

function request(step: number, content = "任务"): ModelRequest {
  return { task: { goal: "任务" }, messages: [{ role: "user", content }], step, tools: [] };
}

describe("createScriptedProvider", () => {
  it("replies with the scripted actions in order, with their usage", async () => {
    const provider = createScriptedProvider([
      { action: { type: "message", content: "a" }, usage: { inputTokens: 3, outputTokens: 1 } },
      { action: { type: "finish", summary: "b" } },
    ]);
    await expect(provider.complete(request(1), never)).resolves.toEqual({
      action: { type: "message", content: "a" },
      usage: { inputTokens: 3, outputTokens: 1 },
    });
    await expect(provider.complete(request(2), never)).resolves.toEqual({
      action: { type: "finish", summary: "b" },
    });
  });

  it("rejects with ScriptExhaustedError when called past its script", async () => {
    const provider = createScriptedProvider([{ action: { type: "finish", summary: "b" } }]);
    await provider.complete(request(1), never);
    const call = provider.complete(request(2), never);
    await expect(call).rejects.toBeInstanceOf(ScriptExhaustedError);
    await expect(call).rejects.toThrow("只有 1 轮，却收到第 2 次调用");
  });

  it("rejects with the scripted error", async () => {
    const provider = createScriptedProvider([{ error: new Error("rate limited") }]);
    await expect(provider.complete(request(1), never)).rejects.toThrow("rate limited");
  });

  it("records a deep snapshot that a later change of the caller's request does not alter", async () => {
    const provider = createScriptedProvider([{ action: { type: "finish", summary: "b" } }]);
    const mutable = {
      task: { goal: "原目标" },
      messages: [{ role: "user" as const, content: "原内容" }],
      step: 1,
      tools: [],
    };
    await provider.complete(mutable, never);
    mutable.task.goal = "改过";
    mutable.messages[0] = { role: "user", content: "改过" };
    mutable.messages.push({ role: "user", content: "追加" });
    expect(provider.requests[0]).toEqual({
      task: { goal: "原目标" },
      messages: [{ role: "user", content: "原内容" }],
      step: 1,
      tools: [],
    });
  });

  it("keeps a request built from a history view by reference, and a later append does not alter it", async () => {
    const history = createHistory();
    history.append({ role: "user", content: "任务" });
    const first = createModelRequest({
      task: { goal: "任务" },
      messages: history.view(),
      step: 1,
      tools: [],
    });
    const provider = createScriptedProvider([
      { action: { type: "message", content: "a" } },
      { action: { type: "finish", summary: "b" } },
    ]);
    await provider.complete(first, never);
    history.append({ role: "assistant", type: "message", content: "a" });
    await provider.complete(
      createModelRequest({ task: { goal: "任务" }, messages: history.view(), step: 2, tools: [] }),
      never,
    );
    expect(provider.requests[0]).toBe(first);
    expect(provider.requests[0]?.messages).toEqual([{ role: "user", content: "任务" }]);
    expect(provider.requests[1]?.messages).toHaveLength(2);
  });

  it("does not consume a turn when the signal is already aborted", async () => {
    const provider = createScriptedProvider([{ action: { type: "finish", summary: "b" } }]);
    const controller = new AbortController();
    controller.abort();
    await expect(provider.complete(request(1), controller.signal)).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(provider.remaining).toBe(1);
    expect(provider.requests).toHaveLength(0);
  });

  it("rejects with AbortError when aborted during a delayed turn", async () => {
    const provider = createScriptedProvider([
      { action: { type: "finish", summary: "b" }, delayMs: 60_000 },
    ]);
    const controller = new AbortController();
    const call = provider.complete(request(1), controller.signal);
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(AbortError);
  });

  it("passes assertAllUsed when every turn was requested", async () => {
    const provider = createScriptedProvider([{ action: { type: "finish", summary: "b" } }]);
    await provider.complete(request(1), never);
    expect(() => provider.assertAllUsed()).not.toThrow();
  });

  it("fails assertAllUsed with the count of unused turns", async () => {
    const provider = createScriptedProvider([
      { action: { type: "message", content: "a" } },
      { action: { type: "finish", summary: "b" } },
    ]);
    await provider.complete(request(1), never);
    expect(() => provider.assertAllUsed()).toThrow(ScriptNotFinishedError);
    expect(() => provider.assertAllUsed()).toThrow("还剩 1 轮");
  });

  it("is not affected by later changes to the script array it was given", async () => {
    const script = [{ action: { type: "finish", summary: "b" } }];
    const provider = createScriptedProvider(script);
    script.length = 0;
    await expect(provider.complete(request(1), never)).resolves.toMatchObject({
      action: { type: "finish" },
    });
  });
});

describe("ScriptSchema", () => {
  it("accepts turns with actions, usage, delays and errors", () => {
    expect(
      ScriptSchema.safeParse([
        {
          action: { type: "message", content: "a" },
          delayMs: 10,
          usage: { inputTokens: 1, outputTokens: 2 },
        },
        { error: "boom" },
      ]).success,
    ).toBe(true);
  });

  it("reports a bad value at its field, not as a failed union", () => {
    const parsed = ScriptSchema.safeParse([
      { action: { type: "finish", summary: "x" } },
      { error: "x", delayMs: -1 },
    ]);
    expect(parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join("."))).toEqual([
      "1.delayMs",
    ]);
  });

  it("rejects a turn with both action and error", () => {
    expect(
      ScriptSchema.safeParse([{ action: { type: "finish", summary: "x" }, error: "boom" }]).success,
    ).toBe(false);
  });

  it("turns a turn of several actions into a response with actions", async () => {
    const parsed = ScriptSchema.parse([{ actions: [{ type: "message", content: "a" }] }]);
    const provider = createScriptedProvider(parsed);
    await expect(provider.complete(request(1), never)).resolves.toEqual({
      actions: [{ type: "message", content: "a" }],
    });
  });

  it("rejects a turn with both action and actions", () => {
    const action = { type: "finish", summary: "x" };
    expect(ScriptSchema.safeParse([{ action, actions: [action] }]).success).toBe(false);
  });

  it("rejects a turn with neither action nor error", () => {
    expect(ScriptSchema.safeParse([{ delayMs: 5 }]).success).toBe(false);
  });
});

describe("ScriptSchema's output, exactly", () => {
  const X = { type: "finish", summary: "x" };
  const U = { inputTokens: 2, outputTokens: 1 };

  it.each([
    ["an action alone", [{ action: X }], [{ action: X }]],
    [
      "an action with usage and a delay",
      [{ action: X, usage: U, delayMs: 5 }],
      [{ action: X, usage: U, delayMs: 5 }],
    ],
    ["several actions with usage", [{ actions: [X], usage: U }], [{ actions: [X], usage: U }]],
    ["an error with a delay", [{ error: "boom", delayMs: 3 }], [{ error: "boom", delayMs: 3 }]],
    ["an error, whose usage means nothing", [{ error: "boom", usage: U }], [{ error: "boom" }]],
  ])("turns %s into exactly that turn", (_, input, output) => {
    expect(ScriptSchema.parse(input)).toStrictEqual(output);
  });

  it("says what a turn needs, at the turn", () => {
    const parsed = ScriptSchema.safeParse([{}]);
    expect(parsed.success ? [] : parsed.error.issues).toMatchObject([
      { path: [0], message: "每一轮需要 action、actions 或 error 之一（且只能有一个）" },
    ]);
  });
});

describe("createScriptedProvider, details a test relies on", () => {
  const finish = { action: { type: "finish", summary: "x" } };

  it("counts the turns that remain, never below zero", async () => {
    const provider = createScriptedProvider([finish, finish, finish]);
    expect(provider.remaining).toBe(3);
    await provider.complete(request(1), never);
    expect(provider.remaining).toBe(2);
  });

  it("replies to a turn without delay (or a delay of 0) without waiting for a timer", async () => {
    vi.useFakeTimers();
    try {
      const provider = createScriptedProvider([finish, { ...finish, delayMs: 0 }]);
      for (const step of [1, 2]) {
        let done = false;
        void provider.complete(request(step), never).then(() => {
          done = true;
        });
        for (let tick = 0; tick < 10; tick += 1) await Promise.resolve();
        expect(done).toBe(true);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves no usage key on a reply that has none", async () => {
    const reply = await createScriptedProvider([finish]).complete(request(1), never);
    expect(Object.keys(reply)).toEqual(["action"]);
  });

  it("names what happened in its AbortErrors, and leaves no listener on the signal", async () => {
    const already = new AbortController();
    already.abort();
    await expect(
      createScriptedProvider([finish]).complete(request(1), already.signal),
    ).rejects.toThrow("不消耗任何一轮");

    const during = new AbortController();
    const pending = createScriptedProvider([{ ...finish, delayMs: 10_000 }]).complete(
      request(1),
      during.signal,
    );
    during.abort();
    await expect(pending).rejects.toThrow("延迟被 signal 中止");
    expect(getEventListeners(during.signal, "abort")).toHaveLength(0);

    const { signal } = new AbortController();
    await createScriptedProvider([{ ...finish, delayMs: 1 }]).complete(request(1), signal);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("snapshots a request it did not build as a frozen deep copy, keeping numbers and views", async () => {
    const history = createHistory();
    history.append({ role: "user", content: "任务" });
    const view = history.view();
    const original = { task: { goal: "g" }, messages: view, step: 2, tools: [] };
    const provider = createScriptedProvider([finish]);
    await provider.complete(original, never);
    const [snapshot] = provider.requests;
    expect(snapshot?.step).toBe(2);
    expect(snapshot?.task).toEqual({ goal: "g" });
    expect(snapshot?.task).not.toBe(original.task);
    expect(Object.isFrozen(snapshot?.task)).toBe(true);
    // A history view is already immutable: kept by reference, not copied.
    expect(snapshot?.messages).toBe(view);
  });
});
