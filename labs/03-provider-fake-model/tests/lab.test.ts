import { type Action, createScriptedProvider, ScriptExhaustedError } from "@lab";
import { describe, expect, it } from "vitest";

/** What a promise settled to, so a test can assert on a rejection with ordinary `expect`. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

const readme: Action = { type: "tool_call", tool: "read_file", input: { path: "README.md" } };
const finish: Action = { type: "finish", summary: "读取完成" };

describe("createScriptedProvider", () => {
  it("returns the scripted actions in order", async () => {
    const provider = createScriptedProvider([readme, finish]);

    const first = await provider.complete({ task: "读取 README", observations: [] });
    const second = await provider.complete({ task: "读取 README", observations: ["tool:x:1"] });

    expect([first, second]).toEqual([readme, finish]);
  });

  it("records a snapshot of each request that later changes by the caller do not alter", async () => {
    const provider = createScriptedProvider([readme, finish]);
    const observations: string[] = []; // the caller keeps one array and appends to it

    await provider.complete({ task: "读取 README", observations });
    observations.push('tool:read_file:{"content":"hello"}');
    await provider.complete({ task: "读取 README", observations });
    observations.push("message:这一条在两次调用之后");

    expect(provider.requests.map((request) => request.observations)).toEqual([
      [],
      ['tool:read_file:{"content":"hello"}'],
    ]);
  });

  it("rejects with ScriptExhaustedError when called past its script", async () => {
    const provider = createScriptedProvider([finish]);
    await provider.complete({ task: "总结", observations: [] });

    const error = await rejectionOf(
      provider.complete({ task: "总结", observations: ["message:还没完"] }),
    );

    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect(error).toHaveProperty(
      "message",
      expect.stringContaining("脚本只有 1 个动作，却收到了第 2 次调用"),
    );
  });

  it("rejects an already aborted call with an AbortError without using a script step", async () => {
    const provider = createScriptedProvider([readme]);
    const controller = new AbortController();
    controller.abort();

    const error = await rejectionOf(
      provider.complete({ task: "读取 README", observations: [] }, controller.signal),
    );
    const next = await provider
      .complete({ task: "读取 README", observations: [] })
      .catch((thrown: unknown) => thrown);

    expect({ error, next, recorded: provider.requests.length }).toMatchObject({
      error: { name: "AbortError" },
      next: readme,
      recorded: 1,
    });
  });

  it("lets queued callbacks run before it answers, so a runaway caller can still time out", async () => {
    const provider = createScriptedProvider([finish]);
    const order: string[] = [];

    setImmediate(() => order.push("queued callback"));
    await provider.complete({ task: "总结", observations: [] });
    order.push("answer");

    expect(order).toEqual(["queued callback", "answer"]);
  });
});
