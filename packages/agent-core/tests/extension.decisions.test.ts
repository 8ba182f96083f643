/**
 * What the loop does with each answer an extension may give, valid or not, and with an
 * extension that hangs, throws or is cancelled at each point: it fails closed, names the
 * extension and the point, and never hangs or crashes the run.
 */
import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import type { RunExtension } from "../src/extension.ts";
import type { Message } from "../src/messages.ts";
import { createModelRequest } from "../src/provider.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { call, replies } from "./fixtures/actions.ts";

const finish = { type: "finish", summary: "完成" };
const limits = { maxSteps: 5 };
const tools: ToolSet = { echo: { execute: (input) => input.text ?? "ok" } };
const hang = () => new Promise<never>(() => {});

function run(extension: RunExtension, script: unknown[] = [call("echo", { text: "x" }), finish]) {
  return runAgent("目标", replies(...script), tools, limits, undefined, {
    extensions: [extension],
  });
}

const lastTool = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === "tool").at(-1);

describe("an answer an extension may not give", () => {
  it.each([
    ["afterReply", { afterReply: () => ({ kind: "rewrite" }) }],
    ["afterReply", { afterReply: () => "stop" }],
    ["afterToolCall", { afterToolCall: () => ({ kind: "stop", code: "cancelled", reason: "x" }) }],
    ["onFinish", { onFinish: () => ({ kind: "reject", reasons: "no_tests", message: "m" }) }],
    ["onFinish", { onFinish: () => ({ kind: "reject", reasons: [1], message: "m" }) }],
    ["onFinish", { onFinish: () => ({ kind: "reject", reasons: ["r"] }) }],
    ["beforeModelCall", { beforeModelCall: () => ({ kind: "stop", code: 7, reason: "x" }) }],
    ["beforeModelCall", { beforeModelCall: () => ({ kind: "stop", code: "max_steps" }) }],
  ])("at %s ends the run failed with extension_error", async (point, hooks) => {
    const result = await run({ name: "odd", ...hooks } as unknown as RunExtension);
    expect(result).toMatchObject({ status: "failed", code: "extension_error" });
    expect(result.reason).toBe(`扩展 odd 的 ${point} 返回了无效的决定`);
  });

  it.each([
    ["a veto without a message", { kind: "veto", error: { code: "no" } }],
    ["a veto without an error", { kind: "veto" }],
    ["a block without a reason", { kind: "block" }],
    ["an answer without a value", { kind: "answer" }],
    ["an unknown kind", { kind: "skip" }],
    ["a stop with an unknown code", { kind: "stop", code: "nope", reason: "x" }],
    ["a stop without a reason", { kind: "stop", code: "state_failed" }],
    ["a rewrite without an input", { kind: "rewrite" }],
    ["a rewrite to null", { kind: "rewrite", input: null }],
    ["a rewrite to a list", { kind: "rewrite", input: [{ text: "x" }] }],
    ["a rewrite to a text", { kind: "rewrite", input: "x" }],
    ["a text", "run"],
  ])("before a tool call, %s fails closed: not run, tool_error", async (_, decision) => {
    let ran = 0;
    const counting: ToolSet = {
      echo: {
        execute: () => {
          ran += 1;
          return "ran";
        },
      },
    };
    const result = await runAgent(
      "目标",
      replies(call("echo"), finish),
      counting,
      limits,
      undefined,
      {
        extensions: [{ name: "odd", beforeToolCall: () => decision } as unknown as RunExtension],
      },
    );
    expect(result).toMatchObject({ status: "failed", code: "tool_error", toolCalls: 0 });
    expect(result.reason).toBe(
      "工具 echo 的许可检查出错：扩展 odd 的 beforeToolCall 返回了无效的决定",
    );
    expect(ran).toBe(0);
    expect(lastTool(result.messages)).toMatchObject({ ok: false, error: { code: "tool_error" } });
  });

  it("before a tool call, a stop ends the run with its code; the call is answered, never run", async () => {
    let ran = 0;
    const counting: ToolSet = {
      echo: {
        execute: () => {
          ran += 1;
        },
      },
    };
    const stop = { kind: "stop", code: "state_failed", reason: "状态日志写不进去" } as const;
    const result = await runAgent(
      "目标",
      replies(call("echo"), finish),
      counting,
      limits,
      undefined,
      {
        extensions: [{ name: "log", beforeToolCall: () => stop }],
      },
    );
    expect(result).toMatchObject({
      status: "failed",
      code: "state_failed",
      reason: "状态日志写不进去",
      toolCalls: 0,
    });
    expect(ran).toBe(0);
    expect(lastTool(result.messages)).toMatchObject({
      ok: false,
      error: { code: "state_failed", message: "未执行：状态日志写不进去" },
    });
  });

  it.each([
    ["not a request", 42],
    ["a request without messages", { task: { goal: "g" }, tools: [] }],
    ["a request without tools", { task: { goal: "g" }, messages: [] }],
    ["a request without a goal", { task: {}, messages: [], tools: [] }],
    [
      "a request whose getter throws",
      {
        task: { goal: "g" },
        tools: [],
        get messages() {
          throw new Error("boom");
        },
      },
    ],
  ])("a rewrite to %s is refused", async (_, request) => {
    const provider = replies(finish);
    const result = await runAgent("目标", provider, {}, limits, undefined, {
      extensions: [
        {
          name: "rw",
          beforeModelCall: () => ({ kind: "rewrite", request }),
        } as unknown as RunExtension,
      ],
    });
    expect(result).toMatchObject({
      code: "extension_error",
      reason: "扩展 rw 的 beforeModelCall 返回了无效的决定",
    });
    expect(provider.requests).toHaveLength(0);
  });
});

describe("a compaction reported with a rewrite", () => {
  const result = { callId: "call_1", tool: "read_file", artifactId: "call_1-1" };
  const compaction = {
    estimatedTokens: 3_000,
    compactedTokens: 1_000,
    maxContextTokens: 2_000,
    results: [result],
    totalCompacted: 1,
  };

  function compacting(reported: unknown) {
    const provider = replies(finish);
    const events: TraceEvent[] = [];
    const done = runAgent("目标", provider, {}, limits, undefined, {
      trace: (event) => void events.push(event),
      extensions: [
        {
          name: "cb",
          beforeModelCall: (request) => ({ kind: "rewrite", request, compaction: reported }),
        } as RunExtension,
      ],
    });
    return { done, events, provider };
  }

  it("is traced as it was reported when every part is there", async () => {
    const { done, events } = compacting(compaction);
    expect(await done).toMatchObject({ status: "completed" });
    expect(events.find((event) => event.type === "compacted")).toMatchObject(compaction);
  });

  it.each([
    ["not an object", "compacted"],
    ["null", null],
    ["no estimatedTokens", { ...compaction, estimatedTokens: undefined }],
    ["an infinite compactedTokens", { ...compaction, compactedTokens: Number.POSITIVE_INFINITY }],
    ["a maxContextTokens that is text", { ...compaction, maxContextTokens: "2000" }],
    ["a fractional totalCompacted", { ...compaction, totalCompacted: 1.5 }],
    ["results that are no list", { ...compaction, results: result }],
    ["a result that is null", { ...compaction, results: [null] }],
    ["a result without a callId", { ...compaction, results: [{ ...result, callId: 1 }] }],
    ["a result without a tool", { ...compaction, results: [{ ...result, tool: undefined }] }],
    ["a result without an artifactId", { ...compaction, results: [{ ...result, artifactId: 7 }] }],
  ])("is refused when it is %s: extension_error, no model call", async (_, reported) => {
    const { done, events, provider } = compacting(reported);
    expect(await done).toMatchObject({
      code: "extension_error",
      reason: "扩展 cb 的 beforeModelCall 返回了无效的决定",
    });
    expect(provider.requests).toHaveLength(0);
    expect(events.some((event) => event.type === "compacted")).toBe(false);
  });
});

describe("a rewritten request", () => {
  it("keeps an immutable request of the same step as it is, and renumbers another to the run's step", async () => {
    const seen: unknown[] = [];
    const provider = {
      complete: async (request: unknown) => {
        seen.push(request);
        return { action: finish };
      },
    };
    let kept: unknown;
    await runAgent("目标", provider, {}, limits, undefined, {
      extensions: [
        {
          name: "same",
          beforeModelCall: (request) => {
            kept = createModelRequest({ ...request, messages: request.messages });
            return { kind: "rewrite", request: kept as typeof request };
          },
        },
      ],
    });
    expect(seen[0]).toBe(kept);

    const renumbered = createScriptedProvider([{ action: finish }]);
    await runAgent("目标", renumbered, {}, limits, undefined, {
      extensions: [
        {
          name: "other",
          beforeModelCall: (request) => ({
            kind: "rewrite",
            request: createModelRequest({ ...request, step: 99 }),
          }),
        },
      ],
    });
    expect(renumbered.requests[0]?.step).toBe(1);
    expect(Object.isFrozen(renumbered.requests[0])).toBe(true);
  });

  it("cannot be changed by the provider through arrays the extension built", async () => {
    const messages: Message[] = [{ role: "user", content: "新历史" }];
    const provider = {
      complete: async (request: { messages: Message[] }) => {
        expect(() => request.messages.push({ role: "user", content: "偷改" })).toThrow(TypeError);
        return { action: finish };
      },
    };
    const result = await runAgent("目标", provider as never, {}, limits, undefined, {
      extensions: [
        {
          name: "rw",
          beforeModelCall: (request) => ({ kind: "rewrite", request: { ...request, messages } }),
        },
      ],
    });
    expect(result.status).toBe("completed");
  });
});

describe("an extension that hangs, is cancelled or throws", () => {
  const points: [string, Partial<RunExtension>][] = [
    ["afterReply", { afterReply: hang }],
    ["afterToolCall", { afterToolCall: hang }],
    ["onFinish", { onFinish: hang }],
  ];

  it.each(points)(
    "at %s, past the run's deadline, ends the run max_duration",
    async (point, hooks) => {
      const result = await runAgent(
        "目标",
        replies(call("echo"), finish),
        tools,
        { maxSteps: 5, maxDurationMs: 20 },
        undefined,
        {
          extensions: [{ name: "slow", ...hooks }],
          // The run's clock stands still: only the point's own wait can use up the 20 ms,
          // however slow the machine is on the way there.
          clock: () => 0,
        },
      );
      expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
      expect(result.reason).toBe(`扩展 slow 的 ${point} 用完时间预算 20 ms`);
    },
  );

  it.each(points)("at %s, cancelled, ends the run cancelled", async (point, hooks) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const result = await runAgent(
      "目标",
      replies(call("echo"), finish),
      tools,
      limits,
      controller.signal,
      {
        extensions: [{ name: "slow", ...hooks }],
      },
    );
    expect(result).toMatchObject({ status: "cancelled", code: "cancelled" });
    expect(result.reason).toBe(`扩展 slow 的 ${point} 期间运行被取消`);
  });

  it("at afterToolCall, answers the call that ran with the reason, traced as completed", async () => {
    const events: TraceEvent[] = [];
    const result = await runAgent("目标", replies(call("echo"), finish), tools, limits, undefined, {
      trace: (event) => void events.push(event),
      extensions: [
        {
          name: "post",
          afterToolCall: () => {
            throw new Error("坏了");
          },
        },
      ],
    });
    expect(result).toMatchObject({ code: "extension_error", toolCalls: 1 });
    expect(lastTool(result.messages)).toMatchObject({
      ok: false,
      error: {
        code: "extension_error",
        message: "结果未写回：扩展 post 的 afterToolCall 出错：坏了",
      },
    });
    expect(events.filter((event) => event.type === "tool_completed")).toHaveLength(1);
  });

  it("before a tool call, past the deadline, the call is answered but never started", async () => {
    const events: TraceEvent[] = [];
    const result = await runAgent(
      "目标",
      replies(call("echo"), finish),
      tools,
      { maxSteps: 5, maxDurationMs: 20 },
      undefined,
      {
        trace: (event) => void events.push(event),
        extensions: [{ name: "slow", beforeToolCall: hang }],
        // As above: a still clock, so only the wait for approval can use up the 20 ms (a
        // loaded machine once spent them on the way there: "已运行 23 ms，达到时间预算 20 ms").
        clock: () => 0,
      },
    );
    expect(result).toMatchObject({ code: "max_duration", toolCalls: 0 });
    expect(result.reason).toBe("工具 echo 等待许可时用完时间预算 20 ms");
    expect(lastTool(result.messages)).toMatchObject({ error: { code: "max_duration" } });
    expect(events.some((event) => event.type === "tool_started")).toBe(false);
  });

  it.each([
    ["a cancel while it decides", () => new Promise<never>(() => {})],
    [
      "an AbortError it throws",
      () => Promise.reject(Object.assign(new Error("aborted"), { name: "AbortError" })),
    ],
  ])(
    "before a tool call, %s ends the run cancelled, the call never started",
    async (_, beforeToolCall) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 10);
      const result = await runAgent(
        "目标",
        replies(call("echo"), finish),
        tools,
        limits,
        controller.signal,
        {
          extensions: [{ name: "slow", beforeToolCall }],
        },
      );
      expect(result).toMatchObject({
        code: "cancelled",
        toolCalls: 0,
        reason: "工具 echo 等待许可时运行被取消",
      });
      expect(lastTool(result.messages)).toMatchObject({
        error: { code: "cancelled", message: "未执行：等待许可时运行被取消" },
      });
    },
  );

  it("gives every point the run's signal", async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const take = (_value: unknown, signal: AbortSignal) => void signals.push(signal);
    await runAgent("目标", replies(call("echo"), finish), tools, limits, controller.signal, {
      extensions: [
        {
          name: "all",
          beforeModelCall: take,
          afterReply: take,
          beforeToolCall: take,
          afterToolCall: (_call, _result, signal) => void signals.push(signal),
          onFinish: take,
        },
      ],
    });
    expect(signals).toHaveLength(7);
    expect(signals.every((signal) => signal === controller.signal)).toBe(true);
  });
});

describe("trace listeners", () => {
  it("give a single listener each event once, and several listeners each event in order", async () => {
    const one: number[] = [];
    await runAgent("目标", replies(finish), {}, limits, undefined, {
      extensions: [{ name: "one", onTrace: (event) => void one.push(event.seq) }],
    });
    expect(one).toEqual([1, 2, 3, 4]);

    const order: string[] = [];
    await runAgent("目标", replies(finish), {}, limits, undefined, {
      trace: (event) => void order.push(`sink ${event.seq}`),
      extensions: [{ name: "a", onTrace: (event) => void order.push(`a ${event.seq}`) }],
    });
    expect(order.slice(0, 4)).toEqual(["a 1", "sink 1", "a 2", "sink 2"]);
  });
});

describe("answers that mean go on, and what the next extension sees", () => {
  it.each([
    ["undefined", undefined],
    ["null", null],
    ['{ kind: "run" }', { kind: "run" }],
  ])("before a tool call, %s runs the call", async (_, decision) => {
    const result = await run({
      name: "go",
      beforeToolCall: () => decision,
    } as unknown as RunExtension);
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
  });

  it.each([
    ["afterReply", { afterReply: () => null }],
    ["beforeModelCall", { beforeModelCall: () => null }],
    ["afterToolCall", { afterToolCall: () => null }],
    ["onFinish", { onFinish: () => null }],
  ])("at %s, null means go on", async (_, hooks) => {
    const result = await run({ name: "go", ...hooks } as unknown as RunExtension);
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
  });

  it("gives the next afterToolCall the result the previous one put in place", async () => {
    const seen: unknown[] = [];
    const result = await run({
      name: "first",
      afterToolCall: () => ({ kind: "replace", value: "换过的" }),
    });
    expect(lastTool(result.messages)).toMatchObject({ content: "换过的" });
    await runAgent("目标", replies(call("echo", { text: "x" }), finish), tools, limits, undefined, {
      extensions: [
        { name: "first", afterToolCall: () => ({ kind: "replace", value: "换过的" }) },
        { name: "second", afterToolCall: (_call, result) => void seen.push(result) },
      ],
    });
    expect(seen).toEqual([{ ok: true, value: "换过的" }]);
  });

  it("takes an AbortError an extension throws as a cancel, even when the run goes on", async () => {
    const abort = () => Promise.reject(Object.assign(new Error("stop"), { name: "AbortError" }));
    const result = await run({ name: "ab", afterReply: abort });
    expect(result).toMatchObject({
      code: "cancelled",
      reason: "扩展 ab 的 afterReply 期间运行被取消",
    });
  });

  it("refuses a rejection whose reasons are not all texts", async () => {
    const result = await run({
      name: "gate",
      onFinish: () => ({ kind: "reject", reasons: ["ok", 1], message: "m" }) as never,
    });
    expect(result).toMatchObject({
      code: "extension_error",
      reason: "扩展 gate 的 onFinish 返回了无效的决定",
    });
  });
});

describe("a model call that does not answer", () => {
  it("is a cancel when the run is cancelled during it, whatever the provider does", async () => {
    const controller = new AbortController();
    const provider = {
      complete: async () => {
        controller.abort();
        return { action: finish };
      },
    };
    const result = await runAgent("目标", provider, {}, limits, controller.signal);
    expect(result).toMatchObject({ code: "cancelled", reason: "模型调用期间运行被取消", steps: 0 });
  });

  it("is a cancel when the provider throws an AbortError of its own", async () => {
    const provider = {
      complete: async () => Promise.reject(Object.assign(new Error("x"), { name: "AbortError" })),
    };
    const result = await runAgent("目标", provider, {}, limits);
    expect(result).toMatchObject({ code: "cancelled", reason: "模型调用被中止" });
  });
});

describe("a request's system prompt", () => {
  /** A provider that finishes at once and keeps the system prompt of each request. */
  const seeing = (seen: (string | undefined)[]) => ({
    complete: async (request: { readonly system?: string }) => {
      seen.push(request.system);
      return { action: finish };
    },
  });
  const setting = (value: unknown, copy: boolean): RunExtension => ({
    name: "system-prompt",
    beforeModelCall: (request) => ({
      kind: "rewrite",
      // A plain copy is made immutable by the loop; it must keep the prompt too.
      request: (copy
        ? { ...request, messages: [...request.messages], system: value }
        : createModelRequest({ ...request, system: value as string })) as typeof request,
    }),
  });

  it.each([true, false])(
    "set by an extension reaches the provider, and later extensions keep it (plain copy: %s)",
    async (copy) => {
      const seen: (string | undefined)[] = [];
      const later: RunExtension = {
        name: "later",
        beforeModelCall: (request) => ({
          kind: "rewrite",
          request: createModelRequest({ ...request, tools: [] }),
        }),
      };
      const result = await runAgent("目标", seeing(seen), tools, limits, undefined, {
        extensions: [setting("你是编程助手", copy), later],
      });
      expect(result.status).toBe("completed");
      expect(seen).toEqual(["你是编程助手"]);
    },
  );

  it("is absent from a request no extension set it on (no key at all)", async () => {
    const seen: (string | undefined)[] = [];
    const keys: string[][] = [];
    const provider = {
      complete: async (request: object) => {
        keys.push(Object.keys(request));
        return seeing(seen).complete(request);
      },
    };
    await runAgent("目标", provider, tools, limits);
    expect(seen).toEqual([undefined]);
    expect(keys[0]).not.toContain("system");
  });

  it("that is not a text fails closed: extension_error, no model call", async () => {
    const seen: (string | undefined)[] = [];
    const result = await runAgent("目标", seeing(seen), tools, limits, undefined, {
      extensions: [setting(42, true)],
    });
    expect(result).toMatchObject({ status: "failed", code: "extension_error" });
    expect(seen).toEqual([]);
  });
});
