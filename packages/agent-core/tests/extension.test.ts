import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgent } from "../src/agent-loop.ts";
import type { RunExtension } from "../src/extension.ts";
import type { Message } from "../src/messages.ts";
import { createModelRequest } from "../src/provider.ts";
import { createRedactor } from "../src/redact.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import { toolError } from "../src/tool-error.ts";
import { blockRun, defineTool, type ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { call, replies, say } from "./fixtures/actions.ts";

const finish = (summary = "完成") => ({ type: "finish", summary });
const limits = { maxSteps: 10 };

/** An echo tool that counts how often it really ran. */
function echoTools() {
  const ran: unknown[] = [];
  const tools: ToolSet = {
    echo: defineTool({
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        ran.push(text);
        return text;
      },
    }),
  };
  return { tools, ran };
}

const toolResults = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === "tool");

describe("RunExtension: a no-op extension at every point", () => {
  it("is asked at every point, in the order of a step, and changes nothing", async () => {
    const seen: string[] = [];
    const noop: RunExtension = {
      name: "noop",
      beforeModelCall: (request) => void seen.push(`beforeModelCall ${request.step}`),
      afterReply: (reply) => void seen.push(`afterReply ${reply.step} ${reply.actions.length}`),
      beforeToolCall: (info) => void seen.push(`beforeToolCall ${info.callId} ${info.tool}`),
      afterToolCall: (info, result) =>
        void seen.push(`afterToolCall ${info.callId} ${JSON.stringify(result)}`),
      onFinish: (proposal) => void seen.push(`onFinish ${proposal.step} ${proposal.summary}`),
      onTrace: (event) => void seen.push(`trace ${event.seq} ${event.type}`),
    };
    const script = [call("echo", { text: "hi" }), finish()];
    const plain = await runAgent("任务", replies(...script), echoTools().tools, limits);
    const extended = await runAgent(
      "任务",
      replies(...script),
      echoTools().tools,
      limits,
      undefined,
      {
        extensions: [noop],
      },
    );

    expect(extended).toEqual(plain);
    expect(seen.filter((line) => !line.startsWith("trace"))).toEqual([
      "beforeModelCall 1",
      "afterReply 1 1",
      "beforeToolCall call_1 echo",
      'afterToolCall call_1 {"ok":true,"value":"hi"}',
      "beforeModelCall 2",
      "afterReply 2 1",
      "onFinish 2 完成",
    ]);
    expect(seen.filter((line) => line.startsWith("trace"))).toEqual([
      "trace 1 run_started",
      "trace 2 model_started",
      "trace 3 model_completed",
      "trace 4 tool_started",
      "trace 5 tool_completed",
      "trace 6 model_started",
      "trace 7 model_completed",
      "trace 8 run_finished",
    ]);
  });

  it("gives onTrace the same events as the trace sink, and a throwing listener changes nothing", async () => {
    const fromSink: TraceEvent[] = [];
    const fromExtension: TraceEvent[] = [];
    const result = await runAgent("任务", replies(finish()), {}, limits, undefined, {
      trace: (event) => void fromSink.push(event),
      extensions: [
        { name: "throws", onTrace: () => Promise.reject(new Error("sink down")) },
        {
          name: "broken",
          onTrace: () => {
            throw new Error("sink down");
          },
        },
        { name: "listener", onTrace: (event) => void fromExtension.push(event) },
      ],
    });
    expect(result.status).toBe("completed");
    expect(fromExtension).toEqual(fromSink);
    expect(fromSink.map((event) => event.type)).toEqual([
      "run_started",
      "model_started",
      "model_completed",
      "run_finished",
    ]);
  });
});

describe("RunExtension.beforeModelCall", () => {
  it("rewrites the request the provider gets, not the history", async () => {
    const provider = replies(say("一"), finish());
    const rewrite: RunExtension = {
      name: "compact",
      beforeModelCall: (request) => ({
        kind: "rewrite",
        request: { ...request, messages: [{ role: "user", content: "压缩后的历史" }] },
      }),
    };
    const result = await runAgent("原始目标", provider, {}, limits, undefined, {
      extensions: [rewrite],
    });
    expect(provider.requests.map((request) => request.messages)).toEqual([
      [{ role: "user", content: "压缩后的历史" }],
      [{ role: "user", content: "压缩后的历史" }],
    ]);
    expect(provider.requests[1]?.step).toBe(2);
    expect(Object.isFrozen(provider.requests[0]?.messages[0])).toBe(true);
    expect(result.messages[0]).toEqual({ role: "user", content: "原始目标" });
    expect(result.messages).toHaveLength(3);
  });

  it("passes each rewrite on to the next extension", async () => {
    const provider = replies(finish());
    const append = (text: string): RunExtension => ({
      name: text,
      beforeModelCall: (request) => ({
        kind: "rewrite",
        request: createModelRequest({
          ...request,
          messages: [...request.messages, { role: "user", content: text }],
        }),
      }),
    });
    await runAgent("目标", provider, {}, limits, undefined, {
      extensions: [append("甲"), append("乙")],
    });
    expect(
      provider.requests[0]?.messages.map((message) => message.role === "user" && message.content),
    ).toEqual(["目标", "甲", "乙"]);
  });

  it("stops the run before the call, with the code it names and its status", async () => {
    const provider = replies(finish());
    const result = await runAgent("目标", provider, {}, limits, undefined, {
      extensions: [
        {
          name: "budget",
          beforeModelCall: () => ({ kind: "stop", code: "max_tokens", reason: "上下文已满" }),
        },
        {
          name: "never",
          beforeModelCall: () => {
            throw new Error("not asked after a stop");
          },
        },
      ],
    });
    expect(result).toMatchObject({
      status: "budget_exceeded",
      code: "max_tokens",
      reason: "上下文已满",
    });
    expect(provider.requests).toHaveLength(0);
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("坏了");
      },
      /扩展 bad 的 beforeModelCall 出错：坏了/,
    ],
    ["answers an unknown kind", () => ({ kind: "maybe" }), /返回了无效的决定/],
    [
      "stops with an unknown code",
      () => ({ kind: "stop", code: "nope", reason: "x" }),
      /返回了无效的决定/,
    ],
    [
      "rewrites to something that is not a request",
      () => ({ kind: "rewrite", request: 42 }),
      /返回了无效的决定/,
    ],
  ])("fails the run closed when it %s", async (_, beforeModelCall, reason) => {
    const provider = replies(finish());
    const result = await runAgent("目标", provider, {}, limits, undefined, {
      extensions: [{ name: "bad", beforeModelCall } as unknown as RunExtension],
    });
    expect(result).toMatchObject({ status: "failed", code: "extension_error" });
    expect(result.reason).toMatch(reason);
    expect(provider.requests).toHaveLength(0);
  });

  it("ends a run cancelled while it waits, and one past its deadline, without hanging", async () => {
    const hang: RunExtension = { name: "hang", beforeModelCall: () => new Promise(() => {}) };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const cancelled = await runAgent("目标", replies(finish()), {}, limits, controller.signal, {
      extensions: [hang],
    });
    expect(cancelled).toMatchObject({ status: "cancelled", code: "cancelled" });
    const late = await runAgent(
      "目标",
      replies(finish()),
      {},
      { maxSteps: 3, maxDurationMs: 5 },
      undefined,
      {
        extensions: [hang],
      },
    );
    expect(late).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
  });
});

describe("RunExtension.afterReply", () => {
  it("stops the run before anything of the reply is recorded or run", async () => {
    const { tools, ran } = echoTools();
    const result = await runAgent(
      "目标",
      replies(call("echo", { text: "x" })),
      tools,
      limits,
      undefined,
      {
        extensions: [
          {
            name: "loop-detector",
            afterReply: (reply) =>
              reply.actions[0]?.type === "tool_call"
                ? { kind: "stop", code: "repeated_action", reason: "同一提案" }
                : undefined,
          },
        ],
      },
    );
    expect(result).toMatchObject({ status: "budget_exceeded", code: "repeated_action", steps: 1 });
    expect(ran).toEqual([]);
    expect(result.messages).toHaveLength(1);
  });
});

describe("RunExtension.beforeToolCall", () => {
  it("vetoes a call with a tool error the model sees; the run goes on", async () => {
    const { tools, ran } = echoTools();
    const provider = replies(call("echo", { text: "rm" }), finish());
    const events: TraceEvent[] = [];
    const result = await runAgent("目标", provider, tools, limits, undefined, {
      trace: (event) => void events.push(event),
      extensions: [
        {
          name: "hook",
          beforeToolCall: () => ({
            kind: "veto",
            error: { code: "hook_denied", message: "不允许" },
          }),
        },
      ],
    });
    expect(result).toMatchObject({ status: "completed", toolCalls: 0 });
    expect(ran).toEqual([]);
    expect(toolResults(result.messages)).toEqual([
      expect.objectContaining({ ok: false, error: { code: "hook_denied", message: "不允许" } }),
    ]);
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", ok: false });
    expect(events.some((event) => event.type === "tool_started")).toBe(false);
  });

  it("counts vetoes as tool errors in a row (maxToolErrors)", async () => {
    const { tools } = echoTools();
    const script = [call("echo", { text: "a" }), call("echo", { text: "b" }), finish()];
    const result = await runAgent(
      "目标",
      replies(...script),
      tools,
      { maxSteps: 5, maxToolErrors: 2 },
      undefined,
      {
        extensions: [
          {
            name: "no",
            beforeToolCall: () => ({ kind: "veto", error: { code: "no", message: "否" } }),
          },
        ],
      },
    );
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_tool_errors" });
  });

  it("blocks the run without running, counting or starting the call", async () => {
    const { tools, ran } = echoTools();
    const events: TraceEvent[] = [];
    const result = await runAgent(
      "目标",
      replies(call("echo", { text: "x" })),
      tools,
      limits,
      undefined,
      {
        trace: (event) => void events.push(event),
        extensions: [
          { name: "policy", beforeToolCall: () => ({ kind: "block", reason: "策略禁止" }) },
        ],
      },
    );
    expect(result).toMatchObject({
      status: "blocked",
      code: "permission_denied",
      reason: "工具 echo 被阻止：策略禁止",
      toolCalls: 0,
    });
    expect(ran).toEqual([]);
    expect(events.some((event) => event.type === "tool_started")).toBe(false);
    expect(toolResults(result.messages)).toHaveLength(1);
  });

  it("answers a call with a result without running it, counted and traced like a call", async () => {
    const { tools, ran } = echoTools();
    const events: TraceEvent[] = [];
    const result = await runAgent(
      "目标",
      replies(call("echo", { text: "x" }), finish()),
      tools,
      limits,
      undefined,
      {
        trace: (event) => void events.push(event),
        extensions: [
          { name: "replay", beforeToolCall: () => ({ kind: "answer", value: "录下的结果" }) },
        ],
      },
    );
    expect(ran).toEqual([]);
    expect(result.toolCalls).toBe(1);
    expect(toolResults(result.messages)).toEqual([
      expect.objectContaining({ ok: true, content: "录下的结果" }),
    ]);
    expect(events.map((event) => event.type)).toContain("tool_started");
  });

  it("is asked before the tool's own authorize; an answer spares the question", async () => {
    const asked: string[] = [];
    const tools: ToolSet = {
      guarded: {
        authorize: () => void asked.push("authorize"),
        execute: () => "ran",
      },
    };
    const order: RunExtension = {
      name: "first",
      beforeToolCall: () => void asked.push("extension"),
    };
    await runAgent("目标", replies(call("guarded"), finish()), tools, limits, undefined, {
      extensions: [order],
    });
    expect(asked).toEqual(["extension", "authorize"]);

    asked.length = 0;
    await runAgent("目标", replies(call("guarded"), finish()), tools, limits, undefined, {
      extensions: [{ name: "resume", beforeToolCall: () => ({ kind: "answer", value: "done" }) }],
    });
    expect(asked).toEqual([]);
  });

  it("still ends the run blocked when the tool's authorize refuses", async () => {
    const tools: ToolSet = {
      guarded: { authorize: () => blockRun("用户拒绝"), execute: () => "ran" },
    };
    const result = await runAgent("目标", replies(call("guarded")), tools, limits, undefined, {
      extensions: [{ name: "noop", beforeToolCall: () => undefined }],
    });
    expect(result).toMatchObject({ status: "blocked", reason: "工具 guarded 被阻止：用户拒绝" });
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("挂了");
      },
    ],
    ["answers something it may not", () => ({ kind: "veto" })],
  ])(
    "fails closed when it %s: the call is not run and the run fails",
    async (_, beforeToolCall) => {
      const { tools, ran } = echoTools();
      const result = await runAgent(
        "目标",
        replies(call("echo", { text: "x" })),
        tools,
        limits,
        undefined,
        {
          extensions: [{ name: "hook", beforeToolCall } as unknown as RunExtension],
        },
      );
      expect(result).toMatchObject({ status: "failed", code: "tool_error", toolCalls: 0 });
      expect(result.reason).toMatch(/许可检查出错/);
      expect(ran).toEqual([]);
    },
  );
});

describe("RunExtension.afterToolCall", () => {
  it("replaces what the model sees, and the replacement is redacted too", async () => {
    const { tools } = echoTools();
    const provider = replies(call("echo", { text: "x" }), finish());
    const result = await runAgent("目标", provider, tools, limits, undefined, {
      redact: createRedactor({ secrets: ["s3cr3t-value"] }),
      extensions: [
        {
          name: "post",
          afterToolCall: (_info, result) =>
            result.ok
              ? { kind: "replace", value: `hook saw ${String(result.value)} s3cr3t-value` }
              : undefined,
        },
      ],
    });
    const content = toolResults(result.messages)[0];
    expect(content).toMatchObject({ ok: true });
    expect(JSON.stringify(content)).toContain("hook saw x");
    expect(JSON.stringify(result)).not.toContain("s3cr3t-value");
  });

  it("may turn a result into an error, which counts as one", async () => {
    const { tools } = echoTools();
    const result = await runAgent(
      "目标",
      replies(call("echo", { text: "x" }), finish()),
      tools,
      limits,
      undefined,
      {
        extensions: [
          {
            name: "post",
            afterToolCall: () => ({ kind: "replace", value: toolError("bad", "不行") }),
          },
        ],
      },
    );
    expect(toolResults(result.messages)[0]).toMatchObject({ ok: false, error: { code: "bad" } });
  });

  it("sees a tool's returned error as an error", async () => {
    const seen: unknown[] = [];
    const tools: ToolSet = { fails: { execute: () => toolError("not_found", "没有") } };
    await runAgent("目标", replies(call("fails"), finish()), tools, limits, undefined, {
      extensions: [{ name: "post", afterToolCall: (_info, result) => void seen.push(result) }],
    });
    expect(seen).toEqual([{ ok: false, error: { code: "not_found", message: "没有" } }]);
  });
});

describe("RunExtension.onFinish and maxFinishRejections", () => {
  const gate = (accept: (attempt: number) => boolean): RunExtension => {
    let attempt = 0;
    return {
      name: "gate",
      onFinish: () => {
        attempt += 1;
        return accept(attempt)
          ? { kind: "accept" }
          : { kind: "reject", reasons: ["no_test_evidence"], message: "还没有运行测试" };
      },
    };
  };

  it("sends a rejected finish back to the model as a finish_rejected message, and the run goes on", async () => {
    const provider = replies(finish("第一次"), finish("第二次"));
    const events: TraceEvent[] = [];
    const result = await runAgent("目标", provider, {}, limits, undefined, {
      trace: (event) => void events.push(event),
      extensions: [gate((attempt) => attempt > 1)],
    });
    expect(result).toMatchObject({ status: "completed", summary: "第二次", steps: 2 });
    expect(provider.requests[1]?.messages.slice(1)).toEqual([
      { role: "assistant", type: "finish", summary: "第一次" },
      {
        role: "user",
        type: "finish_rejected",
        reasons: ["no_test_evidence"],
        content: "还没有运行测试",
      },
    ]);
    expect(events.filter((event) => event.type === "finish_rejected")).toEqual([
      expect.objectContaining({ step: 1, reasons: ["no_test_evidence"], detail: "还没有运行测试" }),
    ]);
  });

  it("ends the run failed at the third rejection by default, counted over the whole run", async () => {
    const script = [finish(), say("再试"), finish(), finish(), finish()];
    const result = await runAgent("目标", replies(...script), {}, limits, undefined, {
      extensions: [gate(() => false)],
    });
    expect(result).toMatchObject({ status: "failed", code: "finish_rejected", steps: 4 });
    expect(result.reason).toMatch(/完成提议被拒绝 3 次，达到上限 3/);
  });

  it("takes its own maximum, and refuses one below 1", async () => {
    const result = await runAgent("目标", replies(finish()), {}, limits, undefined, {
      extensions: [gate(() => false)],
      maxFinishRejections: 1,
    });
    expect(result).toMatchObject({ code: "finish_rejected", steps: 1 });
    await expect(
      runAgent("目标", replies(finish()), {}, limits, undefined, { maxFinishRejections: 0 }),
    ).rejects.toThrow(/maxFinishRejections/);
  });

  it("asks the next extension only when the first accepts", async () => {
    const asked: string[] = [];
    const result = await runAgent("目标", replies(finish(), finish()), {}, limits, undefined, {
      extensions: [
        { name: "a", onFinish: () => void asked.push("a") },
        {
          name: "b",
          onFinish: () => {
            asked.push("b");
            return { kind: "reject", reasons: ["r"], message: "m" };
          },
        },
        { name: "c", onFinish: () => void asked.push("c") },
      ],
      maxFinishRejections: 2,
    });
    expect(asked).toEqual(["a", "b", "a", "b"]);
    expect(result.code).toBe("finish_rejected");
  });

  it("redacts the reasons and the message it writes into the history", async () => {
    const result = await runAgent("目标", replies(finish(), finish()), {}, limits, undefined, {
      redact: createRedactor({ secrets: ["s3cr3t-value"] }),
      extensions: [
        {
          name: "leaky",
          onFinish: () => ({
            kind: "reject",
            reasons: ["s3cr3t-value"],
            message: "key s3cr3t-value",
          }),
        },
      ],
      maxFinishRejections: 5,
    });
    expect(result.messages.at(-1)).toMatchObject({ role: "user", type: "finish_rejected" });
    expect(JSON.stringify(result.messages)).not.toContain("s3cr3t-value");
  });
});

describe("RunExtension with the scripted provider's strictness", () => {
  it("leaves no turn of the script unused when every point is implemented", async () => {
    const provider = createScriptedProvider([
      { actions: [say("先说"), call("echo", { text: "a" }), call("echo", { text: "b" })] },
      { action: finish() },
    ]);
    const seen: string[] = [];
    const result = await runAgent("目标", provider, echoTools().tools, limits, undefined, {
      extensions: [
        {
          name: "all",
          beforeToolCall: (info) => void seen.push(info.callId),
          afterToolCall: (info) => void seen.push(`${info.callId} done`),
        },
      ],
    });
    provider.assertAllUsed();
    expect(result.status).toBe("completed");
    expect(seen).toEqual(["call_1_1", "call_1_1 done", "call_1_2", "call_1_2 done"]);
  });
});
