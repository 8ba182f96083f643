/**
 * The details of a run that callers and models read, pinned exactly: each stop's
 * reason, what a call that did not run gets as its result, which tool results are
 * traced, the fields of trace events, replies of several actions that stop midway,
 * how a task's budgets tighten the caller's limits, call ids made unique, and how
 * thrown non-Error values are written. Fake timers drive every wait.
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { runAgent } from "../src/agent-loop.ts";
import { AbortError } from "../src/errors.ts";
import type { Limits } from "../src/loop-guard.ts";
import type { Message } from "../src/messages.ts";
import type { Provider } from "../src/provider.ts";
import type { RetryPolicy } from "../src/retry.ts";
import type { TaskBudgets } from "../src/task.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import { toolError } from "../src/tool-error.ts";
import { blockRun, defineTool, type Tool, type ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { call, replies, say } from "./fixtures/actions.ts";
import { HttpError, sequence } from "./fixtures/failing-providers.ts";

const finish = { type: "finish", summary: "完成" };
const ok: Tool = { execute: () => "ok" };

/** Runs with a trace; returns the result and every event. */
async function traced(
  provider: Provider,
  tools: ToolSet,
  limits: Limits = { maxSteps: 10 },
  signal?: AbortSignal,
  onEvent: (event: TraceEvent) => void = () => {},
) {
  const events: TraceEvent[] = [];
  const result = await runAgent("任务", provider, tools, limits, signal, {
    trace: (event) => {
      events.push(event);
      onEvent(event);
    },
  });
  return { result, events };
}

const toolMessages = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === "tool");
const ofType = <T extends TraceEvent["type"]>(events: readonly TraceEvent[], type: T) =>
  events.filter((event): event is Extract<TraceEvent, { type: T }> => event.type === type);

/** Runs to the end, moving fake time forward until the run settles. */
async function runToEnd(run: () => Promise<Awaited<ReturnType<typeof traced>>>) {
  let settled = false;
  const pending = run().finally(() => {
    settled = true;
  });
  for (let round = 0; round < 1_000 && !settled; round += 1) {
    await vi.advanceTimersByTimeAsync(10);
  }
  return pending;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the reason of each stop, exactly", () => {
  it("a finish: reason 模型提出完成, summary the model's", async () => {
    const { result, events } = await traced(replies(finish), {});
    expect(result).toMatchObject({ code: "finished", reason: "模型提出完成", summary: "完成" });
    expect(ofType(events, "run_finished")[0]?.reason).toBe("模型提出完成");
  });

  it("a signal aborted before the run: 运行已取消, and no model call", async () => {
    const controller = new AbortController();
    controller.abort();
    const provider = replies(finish);
    const { result } = await traced(provider, {}, { maxSteps: 5 }, controller.signal);
    expect(result).toMatchObject({
      code: "cancelled",
      reason: "运行已取消",
      summary: "运行已取消",
    });
    expect(provider.requests).toHaveLength(0);
  });

  it("an AbortError from the provider while the run goes on: 模型调用被中止", async () => {
    const provider: Provider = {
      complete: () => Promise.reject(new AbortError("the provider gave up")),
    };
    const { result, events } = await traced(provider, {});
    expect(result).toMatchObject({
      status: "cancelled",
      code: "cancelled",
      reason: "模型调用被中止",
    });
    expect(ofType(events, "model_completed")).toMatchObject([
      { ok: false, detail: "模型调用被中止" },
    ]);
  });

  it("an unknown tool names every registered tool, joined by 、", async () => {
    const { result } = await traced(replies(call("nope")), { a: ok, b: ok });
    expect(result).toMatchObject({
      status: "failed",
      code: "unknown_tool",
      reason: "未知工具：nope（已注册：a、b）",
    });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "unknown_tool", message: "未知工具：nope（已注册：a、b）" } },
    ]);
  });

  it("an unknown tool with no tools registered says （无）", async () => {
    const { result, events } = await traced(replies(call("nope")), {});
    expect(result.reason).toBe("未知工具：nope（已注册：（无））");
    // The call never ran: answered in the history, not traced as a tool result.
    expect(ofType(events, "tool_completed")).toEqual([]);
  });
});

describe("a call that never ran still gets its result, untraced", () => {
  it("an unreadable input: invalid_input with the provider's words, traced as an expected error", async () => {
    const unreadable = { ...call("t", {}, "c1"), inputError: "参数不是合法 JSON" };
    const { result, events } = await traced(replies(unreadable, finish), { t: ok });
    expect(toolMessages(result.messages)).toMatchObject([
      {
        ok: false,
        error: {
          code: "invalid_input",
          message: "工具 t 的输入无法读取：参数不是合法 JSON",
          issues: [{ path: "(root)", message: "参数不是合法 JSON" }],
        },
      },
    ]);
    expect(ofType(events, "tool_completed")).toMatchObject([{ callId: "c1", ok: false }]);
  });

  it("a schema that throws: tool_error with the thrown text, not traced", async () => {
    const broken = defineTool({
      inputSchema: z.object({}).refine(() => {
        throw new Error("schema bug");
      }),
      execute: () => "never",
    });
    const { result, events } = await traced(replies(call("t")), { t: broken });
    expect(result).toMatchObject({
      code: "tool_error",
      reason: "工具 t 的输入校验出错：schema bug",
    });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "tool_error", message: "schema bug" } },
    ]);
    expect(ofType(events, "tool_completed")).toEqual([]);
  });

  it("a call past maxToolCalls: 未执行 with the budget's reason, not traced", async () => {
    const { result, events } = await traced(
      replies(call("t", { n: 1 }), call("t", { n: 2 })),
      {
        t: ok,
      },
      { maxSteps: 5, maxToolCalls: 1 },
    );
    expect(result.code).toBe("max_tool_calls");
    const [, second] = toolMessages(result.messages);
    expect(second).toMatchObject({
      ok: false,
      error: { code: "max_tool_calls", message: `未执行：${result.reason}` },
    });
    expect(ofType(events, "tool_completed")).toHaveLength(1);
  });

  it("a cancel between the reply and the tool: 未执行：运行已取消, nothing counted or traced", async () => {
    const controller = new AbortController();
    const execute = vi.fn(() => "ran");
    const { result, events } = await traced(
      replies(call("t"), finish),
      { t: { execute } },
      { maxSteps: 5 },
      controller.signal,
      // A person presses cancel as the reply arrives.
      (event) => {
        if (event.type === "model_completed") controller.abort();
      },
    );
    expect(result).toMatchObject({
      status: "cancelled",
      code: "cancelled",
      reason: "工具 t 执行前运行被取消",
      toolCalls: 0,
    });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "cancelled", message: "未执行：运行已取消" } },
    ]);
    expect(execute).not.toHaveBeenCalled();
    expect(ofType(events, "tool_started")).toEqual([]);
    expect(ofType(events, "tool_completed")).toEqual([]);
  });
});

describe("results of tools that ran are traced", () => {
  it("a value: tool_completed ok with the observation", async () => {
    const { events } = await traced(replies(call("t"), finish), { t: ok });
    expect(ofType(events, "tool_completed")).toMatchObject([{ ok: true, detail: "ok" }]);
  });

  it("a returned toolError: tool_completed not ok, and the run goes on", async () => {
    const failing: Tool = { execute: () => toolError("not_found", "没有这个文件") };
    const { result, events } = await traced(replies(call("t"), finish), { t: failing });
    expect(result.code).toBe("finished");
    expect(ofType(events, "tool_completed")).toMatchObject([{ ok: false }]);
    expect(ofType(events, "tool_completed")[0]?.detail).toContain("没有这个文件");
  });

  it("a refusal returned by execute: permission_denied, traced", async () => {
    const refusing: Tool = { execute: () => blockRun("策略不允许") };
    const { result, events } = await traced(replies(call("t")), { t: refusing });
    expect(result).toMatchObject({
      status: "blocked",
      code: "permission_denied",
      reason: "工具 t 被阻止：策略不允许",
    });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "permission_denied", message: "工具 t 被阻止：策略不允许" } },
    ]);
    expect(ofType(events, "tool_completed")).toMatchObject([{ ok: false }]);
  });

  it("a throw that a cancel caused is reported as the cancel", async () => {
    const controller = new AbortController();
    const throwing: Tool = {
      execute: () => {
        throw new Error("disk gone");
      },
    };
    const { result, events } = await traced(
      replies(call("t"), finish),
      { t: throwing },
      { maxSteps: 5 },
      controller.signal,
      // The cancel lands while the tool's failure is being recorded.
      (event) => {
        if (event.type === "tool_completed") controller.abort();
      },
    );
    expect(result).toMatchObject({ code: "cancelled", reason: "工具 t 执行期间运行被取消" });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "tool_error", message: "disk gone" } },
    ]);
    expect(ofType(events, "tool_completed")).toHaveLength(1);
  });

  it("a cancel while the tool runs: the call is answered cancelled and traced", async () => {
    const controller = new AbortController();
    const waiting: Tool = {
      execute: () => {
        controller.abort();
        return new Promise(() => {});
      },
    };
    const { result, events } = await traced(
      replies(call("t")),
      { t: waiting },
      { maxSteps: 5 },
      controller.signal,
    );
    expect(result).toMatchObject({ code: "cancelled", reason: "工具 t 执行期间运行被取消" });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "cancelled", message: "工具执行期间运行被取消" } },
    ]);
    expect(ofType(events, "tool_completed")).toMatchObject([{ ok: false }]);
  });

  it("a tool still running at the run's deadline: the reason names the budget, the result is traced", async () => {
    vi.useFakeTimers();
    const stuck: Tool = { execute: () => new Promise(() => {}) };
    const { result, events } = await runToEnd(() =>
      traced(replies(call("t")), { t: stuck }, { maxSteps: 5, maxDurationMs: 1_000 }),
    );
    const reason = "工具 t 执行期间用完时间预算 1000 ms，已中止";
    expect(result).toMatchObject({ code: "max_duration", reason });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "max_duration", message: reason } },
    ]);
    expect(ofType(events, "tool_completed")).toMatchObject([{ ok: false }]);
  });
});

describe("authorize", () => {
  const guarded = (authorize: Tool["authorize"]) => {
    const execute = vi.fn(() => "ran");
    return { tool: { authorize, execute } satisfies Tool, execute };
  };

  it("an AbortError from authorize while the run goes on: cancelled, the call answered, untraced", async () => {
    const { tool, execute } = guarded(() => {
      throw new AbortError("the dialog closed");
    });
    const { result, events } = await traced(replies(call("t"), finish), { t: tool });
    expect(result).toMatchObject({
      status: "cancelled",
      code: "cancelled",
      reason: "工具 t 等待许可时运行被取消",
    });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "cancelled", message: "未执行：等待许可时运行被取消" } },
    ]);
    expect(ofType(events, "tool_completed")).toEqual([]);
    expect(execute).not.toHaveBeenCalled();
  });

  it("a cancel while authorize waits: the same answer", async () => {
    const controller = new AbortController();
    const { tool } = guarded(() => {
      controller.abort();
      return new Promise(() => {});
    });
    const { result } = await traced(
      replies(call("t")),
      { t: tool },
      { maxSteps: 5 },
      controller.signal,
    );
    expect(result).toMatchObject({ code: "cancelled", reason: "工具 t 等待许可时运行被取消" });
  });

  it("an authorize that throws: tool_error, 未执行 with the problem, untraced", async () => {
    const { tool } = guarded(() => {
      throw new Error("policy file missing");
    });
    const { result, events } = await traced(replies(call("t")), { t: tool });
    expect(result).toMatchObject({
      code: "tool_error",
      reason: "工具 t 的许可检查出错：policy file missing",
    });
    expect(toolMessages(result.messages)).toMatchObject([
      {
        ok: false,
        error: { code: "tool_error", message: "未执行：许可检查出错：policy file missing" },
      },
    ]);
    expect(ofType(events, "tool_completed")).toEqual([]);
  });

  it("the run's deadline while authorize waits: max_duration, 未执行 with the reason, untraced", async () => {
    vi.useFakeTimers();
    const { tool, execute } = guarded(() => new Promise(() => {}));
    const { result, events } = await runToEnd(() =>
      traced(replies(call("t")), { t: tool }, { maxSteps: 5, maxDurationMs: 1_000 }),
    );
    const reason = "工具 t 等待许可时用完时间预算 1000 ms";
    expect(result).toMatchObject({ code: "max_duration", reason, toolCalls: 0 });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "max_duration", message: `未执行：${reason}` } },
    ]);
    expect(ofType(events, "tool_completed")).toEqual([]);
    expect(execute).not.toHaveBeenCalled();
  });
});

describe("the trace events of a reply", () => {
  it("model_completed of one action: detail is the recorded action, no usage key without usage", async () => {
    const { events } = await traced(replies(say("你好"), finish), {});
    const [first] = ofType(events, "model_completed");
    expect(first).toMatchObject({
      step: 1,
      ok: true,
      actionType: "message",
      detail: '{"content":"你好","type":"message"}',
    });
    expect(Object.keys(first ?? {})).not.toContain("usage");
  });

  it("model_completed of several actions: ok, the actions as detail, the usage when given", async () => {
    const usage = { inputTokens: 4, outputTokens: 2 };
    const provider = createScriptedProvider([
      { actions: [say("先读"), call("t", { n: 1 })], usage },
      { actions: [say("再读"), call("t", { n: 2 })] },
      { action: finish },
    ]);
    const { events } = await traced(provider, { t: ok });
    const [first, second] = ofType(events, "model_completed");
    expect(first).toMatchObject({ type: "model_completed", step: 1, ok: true, usage });
    expect(first?.detail).toContain("先读");
    expect(first?.detail).toContain('"tool_call"');
    expect(Object.keys(first ?? {})).not.toContain("actionType");
    expect(second).toMatchObject({ step: 2, ok: true });
    expect(Object.keys(second ?? {})).not.toContain("usage");
  });

  it("a detail is bounded by maxObservationChars, and never longer than 2,000 characters", async () => {
    const long = "字".repeat(5_000);
    for (const maxObservationChars of [100, 10_000]) {
      const events: TraceEvent[] = [];
      await runAgent("任务", replies(say(long), finish), {}, { maxSteps: 5 }, undefined, {
        maxObservationChars,
        trace: (event) => void events.push(event),
      });
      const detail = ofType(events, "model_completed")[0]?.detail ?? "";
      expect(detail.length).toBeGreaterThan(0);
      expect(detail.length).toBeLessThanOrEqual(Math.min(2_000, maxObservationChars));
    }
  });

  it("tool_started carries the input as text", async () => {
    const { events } = await traced(replies(call("t", { path: "a.ts" }), finish), { t: ok });
    expect(ofType(events, "tool_started")).toMatchObject([{ tool: "t", input: '{"path":"a.ts"}' }]);
  });

  it("without a trace sink no trace text is built, and the redactor never sees serialized JSON", async () => {
    const seen: string[] = [];
    const redact = (text: string) => {
      seen.push(text);
      return text;
    };
    const script = () =>
      createScriptedProvider([
        { action: call("t", { path: "a.ts" }) },
        { actions: [say("继续"), call("t", { path: "b.ts" })] },
        { action: finish },
      ]);
    const plain = await runAgent("任务", script(), { t: ok }, { maxSteps: 5 }, undefined, {
      redact,
    });
    expect(plain.status).toBe("completed");
    const plainCalls = seen.length;
    // Values are redacted, never their serialized text (a mask must not cross JSON syntax).
    expect(seen.filter((text) => text.includes('"type":'))).toEqual([]);
    expect(seen.filter((text) => text.includes('{"path":'))).toEqual([]);

    // The same run traced redacts more (the trace's texts): the count above can differ.
    seen.length = 0;
    await runAgent("任务", script(), { t: ok }, { maxSteps: 5 }, undefined, {
      redact,
      trace: () => {},
    });
    expect(seen.length).toBeGreaterThan(plainCalls);
    expect(seen.filter((text) => text.includes('{"path":'))).toEqual([]);
  });
});

describe("a reply of several actions", () => {
  it("rejects an invalid action, naming its index", async () => {
    const provider = createScriptedProvider([{ actions: [say("好"), { type: "nope" }] }]);
    const { result, events } = await traced(provider, {});
    expect(result).toMatchObject({ status: "failed", code: "invalid_action", steps: 0 });
    expect(result.reason).toMatch(/^模型回复无效：actions\[1\]：/);
    expect(ofType(events, "model_completed")).toMatchObject([{ ok: false, detail: result.reason }]);
  });

  it("numbers only its tool calls: call_<step>_1, call_<step>_2", async () => {
    const provider = createScriptedProvider([
      { actions: [say("先看"), call("t", { n: 1 }), say("再看"), call("t", { n: 2 })] },
      { action: finish },
    ]);
    const { result } = await traced(provider, { t: ok });
    expect(toolMessages(result.messages).map((message) => message.callId)).toEqual([
      "call_1_1",
      "call_1_2",
    ]);
  });

  it("stopping at its first call answers each later call once, not_run, untraced", async () => {
    const execute = vi.fn(() => "ran");
    const provider = createScriptedProvider([
      { actions: [call("missing", {}, "a"), call("t", {}, "b"), call("t", { n: 2 }, "c")] },
    ]);
    const { result, events } = await traced(provider, { t: { execute } });
    expect(result).toMatchObject({ code: "unknown_tool", toolCalls: 0 });
    const notRun = `未执行：${result.reason}`;
    expect(toolMessages(result.messages)).toMatchObject([
      { callId: "a", ok: false, error: { code: "unknown_tool" } },
      { callId: "b", ok: false, error: { code: "not_run", message: notRun } },
      { callId: "c", ok: false, error: { code: "not_run", message: notRun } },
    ]);
    expect(toolMessages(result.messages)).toHaveLength(3);
    expect(execute).not.toHaveBeenCalled();
    expect(ofType(events, "tool_completed")).toEqual([]);
  });

  it("stopping at its middle call answers only the calls after it", async () => {
    const throwing: Tool = {
      execute: () => {
        throw new Error("boom");
      },
    };
    const provider = createScriptedProvider([
      { actions: [call("t", {}, "a"), call("bad", {}, "b"), call("t", { n: 3 }, "c")] },
    ]);
    const { result } = await traced(provider, { t: ok, bad: throwing });
    expect(result.code).toBe("tool_error");
    expect(toolMessages(result.messages)).toMatchObject([
      { callId: "a", ok: true },
      { callId: "b", ok: false, error: { code: "tool_error", message: "boom" } },
      { callId: "c", ok: false, error: { code: "not_run" } },
    ]);
  });
});

describe("call ids", () => {
  it("a reused id gets _2, then _3", async () => {
    const provider = replies(
      call("t", { n: 1 }, "x"),
      call("t", { n: 2 }, "x"),
      call("t", { n: 3 }, "x"),
      finish,
    );
    const { result } = await traced(provider, { t: ok });
    expect(toolMessages(result.messages).map((message) => message.callId)).toEqual([
      "x",
      "x_2",
      "x_3",
    ]);
  });
});

describe("a tool's error issues", () => {
  it("keeps the first 20, each redacted", async () => {
    const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
    const issues = Array.from({ length: 25 }, (_, index) => ({
      path: `field${index}`,
      message: `bad ${key}`,
    }));
    const failing: Tool = { execute: () => toolError("invalid_input", "输入有误", issues) };
    const { result } = await traced(replies(call("t"), finish), { t: failing });
    const [answer] = toolMessages(result.messages);
    const kept = answer?.ok === false ? (answer.error.issues ?? []) : [];
    expect(kept).toHaveLength(20);
    expect(kept.map((issue) => issue.path)).toEqual(issues.slice(0, 20).map((i) => i.path));
    expect(JSON.stringify(result.messages)).not.toContain(key);
  });
});

describe("a task's budgets tighten the caller's limits", () => {
  it("applies the task's toolTimeoutMs when the caller set none", async () => {
    vi.useFakeTimers();
    const stuck: Tool = { execute: () => new Promise(() => {}) };
    const budgets: TaskBudgets = { toolTimeoutMs: 1_000 };
    const { result } = await runToEnd(async () => {
      const events: TraceEvent[] = [];
      const run = await runAgent(
        { goal: "任务", budgets },
        replies(call("t"), finish),
        { t: stuck },
        { maxSteps: 5 },
      );
      return { result: run, events };
    });
    expect(result.code).toBe("finished");
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "timeout" } },
    ]);
  });

  it("names the tighter time budget in a reason", async () => {
    vi.useFakeTimers();
    const stuck: Tool = { execute: () => new Promise(() => {}) };
    const { result } = await runToEnd(async () => ({
      result: await runAgent(
        { goal: "任务", budgets: { maxDurationMs: 500 } },
        replies(call("t")),
        { t: stuck },
        { maxSteps: 5, maxDurationMs: 60_000 },
      ),
      events: [],
    }));
    expect(result.reason).toBe("工具 t 执行期间用完时间预算 500 ms，已中止");
  });

  it("a model call's own limit, shorter than what is left of the run, is named model_timeout", async () => {
    vi.useFakeTimers();
    const stuck: Provider = { complete: () => new Promise(() => {}) };
    const { result } = await runToEnd(() =>
      traced(stuck, {}, { maxSteps: 5, maxDurationMs: 60_000, modelTimeoutMs: 1_000 }),
    );
    expect(result).toMatchObject({ code: "model_timeout" });
    expect(result.reason).toContain("1000 ms");
  });
});

describe("the task the model sees", () => {
  it("has no workspace key when the task has none", async () => {
    const provider = replies(finish);
    await runAgent("任务", provider, {}, { maxSteps: 5 });
    expect(Object.keys(provider.requests[0]?.task ?? {})).not.toContain("workspace");
  });
});

describe("thrown values that are not Errors", () => {
  const throwing = (value: unknown): Tool => ({
    execute: () => {
      throw value;
    },
  });

  // Values are made inside the test: a hostile one must not meet vitest's name formatting.
  it.each([
    ["undefined", "undefined", () => undefined],
    ["a symbol", "Symbol(s)", () => Symbol("s")],
    ["a plain object", '{"a":1,"b":"x"}', () => ({ b: "x", a: 1 })],
    [
      "a value whose prototype cannot be read",
      "（无法读取的错误值）",
      () =>
        new Proxy(
          { a: 1 },
          {
            getPrototypeOf() {
              throw new Error("trap");
            },
          },
        ),
    ],
  ])("%s is written as %s", async (_, text, make) => {
    const { result } = await traced(replies(call("t")), { t: throwing(make()) });
    expect(result).toMatchObject({ code: "tool_error", reason: `工具 t 失败：${text}` });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: "tool_error", message: text } },
    ]);
  });
});

const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 };

describe("retries", () => {
  const done = { action: finish };
  const instant = async () => {};

  it("an invalid policy is the caller's mistake even when the run would end at once", async () => {
    const controller = new AbortController();
    controller.abort();
    const events: TraceEvent[] = [];
    await expect(
      runAgent("任务", replies(finish), {}, { maxSteps: 5 }, controller.signal, {
        trace: (event) => void events.push(event),
        retry: { policy: { ...policy, maxAttempts: 0 } },
      }),
    ).rejects.toThrow(RangeError);
    expect(events).toEqual([]);
  });

  it("the model_retry detail is the fingerprint: class, status, message", async () => {
    const model = sequence(
      new HttpError("HTTP 503 busy", 503),
      new HttpError("socket hang up", undefined),
      done,
    );
    const { events, result } = await runWithRetry(model.provider, { policy, sleep: instant });
    expect(result.status).toBe("completed");
    expect(ofType(events, "model_retry").map((event) => event.detail)).toEqual([
      "retryable 503 HTTP 503 busy",
      "retryable no_response socket hang up",
    ]);
  });

  it("bounds the message in a fingerprint to 500 characters", async () => {
    const long = "x".repeat(2_000);
    const model = sequence(new HttpError(long, 503), done);
    const { events } = await runWithRetry(model.provider, { policy, sleep: instant });
    const detail = ofType(events, "model_retry")[0]?.detail ?? "";
    expect(detail.startsWith("retryable 503 x")).toBe(true);
    expect(detail.length).toBeLessThanOrEqual("retryable 503 ".length + 500);
    expect(detail.length).toBeGreaterThan(400);
  });

  it("a model call past modelTimeoutMs is fingerprinted retryable model_timeout", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const provider: Provider = {
      complete() {
        calls += 1;
        return calls > 1 ? Promise.resolve(done) : new Promise(() => {});
      },
    };
    const { events, result } = await runToEnd(() =>
      runWithRetry(provider, { policy, sleep: instant }, { maxSteps: 5, modelTimeoutMs: 1_000 }),
    );
    expect(result.status).toBe("completed");
    expect(ofType(events, "model_retry")).toMatchObject([{ detail: "retryable model_timeout" }]);
  });

  it("a plain Error without a status is a bug: never retried", async () => {
    const model = sequence(new Error("undefined is not a function"), done);
    const sleep = vi.fn(instant);
    const { result, events } = await runWithRetry(model.provider, { policy, sleep });
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(model.calls()).toBe(1);
    expect(sleep).not.toHaveBeenCalled();
    expect(ofType(events, "model_retry")).toEqual([]);
  });

  it("the run's deadline during a model call is not retried", async () => {
    vi.useFakeTimers();
    const provider: Provider = { complete: () => new Promise(() => {}) };
    const sleep = vi.fn(instant);
    const { result, events } = await runToEnd(() =>
      runWithRetry(provider, { policy, sleep }, { maxSteps: 5, maxDurationMs: 1_000 }),
    );
    expect(result.code).toBe("max_duration");
    expect(sleep).not.toHaveBeenCalled();
    expect(ofType(events, "model_retry")).toEqual([]);
  });

  it("the first attempt always asks the model, even with no time left after the guard's check", async () => {
    let now = 0;
    const model = sequence(done);
    const events: TraceEvent[] = [];
    await runAgent("任务", model.provider, {}, { maxSteps: 5, maxDurationMs: 1_000 }, undefined, {
      clock: () => now,
      // The time runs out between the guard's check and the call.
      trace: (event) => {
        events.push(event);
        if (event.type === "model_started") now = 1_000;
      },
      retry: { policy, sleep: instant },
    });
    expect(model.calls()).toBe(1);
  });

  it("the default wait leaves no listener on the signal", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const model = sequence(new HttpError("HTTP 503", 503), done);
    const pending = runAgent("任务", model.provider, {}, { maxSteps: 5 }, controller.signal, {
      retry: { policy, random: () => 0 },
    });
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(pending).resolves.toMatchObject({ status: "completed" });
    expect(model.calls()).toBe(2);
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
  });
});

async function runWithRetry(
  provider: Provider,
  retry: { policy: RetryPolicy; sleep?: (ms: number) => Promise<void> },
  limits: Limits = { maxSteps: 5 },
) {
  const events: TraceEvent[] = [];
  const result = await runAgent("任务", provider, {}, limits, undefined, {
    trace: (event) => void events.push(event),
    retry: { random: () => 0, ...retry },
  });
  return { result, events };
}
