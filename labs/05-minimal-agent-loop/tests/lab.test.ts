import { randomUUID } from "node:crypto";
import { type Action, type ModelRequest, type Provider, runAgent } from "@lab";
import { describe, expect, it, onTestFinished } from "vitest";

/** A provider that plays `script` in order, records every request and fails past its end. */
function scripted(script: readonly Action[], requests: ModelRequest[]): Provider {
  let next = 0;
  return {
    async complete(request) {
      requests.push(request);
      const action = script[next];
      next += 1;
      if (action === undefined) {
        throw new Error(`脚本只有 ${script.length} 步，却收到第 ${next} 次请求`);
      }
      return action;
    },
  };
}

/**
 * Lets timers run between model calls, so a loop that never stops fails by timeout, not a
 * hang; a timer, not setImmediate, so such a loop waits instead of spinning a core.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe("runAgent", () => {
  it("writes a tool result into the next request's observations and completes", async () => {
    const requests: ModelRequest[] = [];
    const result = await runAgent(
      "读取 README",
      scripted(
        [
          { type: "tool_call", tool: "read_file", input: { path: "README.md" } },
          { type: "finish", summary: "读取完成" },
        ],
        requests,
      ),
      { read_file: { execute: async () => ({ content: "hello" }) } },
      { maxSteps: 5, maxRepeatedActions: 2 },
    );

    expect(
      requests[1]?.observations,
      `第二次请求的 observations 里应当有工具结果；你的循环发给模型的是 ${JSON.stringify(requests[1]?.observations)}`,
    ).toEqual(['tool:read_file:{"content":"hello"}']);
    expect(result).toMatchObject({ status: "completed", summary: "读取完成", steps: 2 });
  });

  it("returns budget_exceeded after maxSteps responses when the model never stops", async () => {
    // Ends a runaway loop once the test is over, should a broken guard let it run on.
    const controller = new AbortController();
    onTestFinished(() => controller.abort());
    let calls = 0;
    const chatty: Provider = {
      async complete() {
        calls += 1;
        await yieldToEventLoop();
        // Always a new message, so only maxSteps can stop the run.
        return { type: "message", content: randomUUID() };
      },
    };

    const result = await runAgent(
      "一直说话",
      chatty,
      {},
      { maxSteps: 3, maxRepeatedActions: 1 },
      controller.signal,
    );

    expect(result).toMatchObject({ status: "budget_exceeded", steps: 3 });
    expect(calls).toBe(3);
  });

  it("returns budget_exceeded with steps 2 on the second identical message when maxRepeatedActions is 1", async () => {
    const repeating: Provider = {
      async complete() {
        await yieldToEventLoop();
        return { type: "message", content: "我再想想" };
      },
    };

    const result = await runAgent("重复", repeating, {}, { maxSteps: 10, maxRepeatedActions: 1 });

    expect(result).toMatchObject({ status: "budget_exceeded", steps: 2 });
  });

  it("returns cancelled without calling the provider again once the signal is aborted, even with the step budget used up", async () => {
    // Case 1: the signal was aborted before the run started.
    const before = new AbortController();
    before.abort();
    let callsBefore = 0;
    const spy: Provider = {
      async complete() {
        callsBefore += 1;
        await yieldToEventLoop();
        return { type: "message", content: "不该被调用" };
      },
    };
    const early = await runAgent(
      "已取消",
      spy,
      {},
      { maxSteps: 5, maxRepeatedActions: 2 },
      before.signal,
    );
    expect(callsBefore, "运行前已取消：Provider 不应被调用").toBe(0);
    expect(early, "运行前已取消：应为 cancelled，steps 为 0").toMatchObject({
      status: "cancelled",
      steps: 0,
    });

    // Case 2: the user cancels while the model answers its last allowed step. The user
    // stopped the run, so it is cancelled, not budget_exceeded.
    const during = new AbortController();
    let callsDuring = 0;
    const cancelsWhileAnswering: Provider = {
      async complete() {
        callsDuring += 1;
        await yieldToEventLoop();
        during.abort();
        return { type: "message", content: "最后一步" };
      },
    };
    const late = await runAgent(
      "最后一步时取消",
      cancelsWhileAnswering,
      {},
      { maxSteps: 1, maxRepeatedActions: 2 },
      during.signal,
    );
    expect(callsDuring, "最后一步时取消：Provider 只被调用一次").toBe(1);
    expect(late, "最后一步时取消：取消优先于预算，应为 cancelled").toMatchObject({
      status: "cancelled",
      steps: 1,
    });
  });
});
