import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { runAgent } from "../src/agent-loop.ts";
import { InvalidLimitsError, InvalidTaskError } from "../src/errors.ts";
import type { ModelRequest, Provider } from "../src/provider.ts";
import { createRedactor } from "../src/redact.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import { toolError } from "../src/tool-error.ts";
import { defineTool, type ToolSet } from "../src/tools.ts";
import { statusOf } from "../src/trace.ts";
import { call, replies, say } from "./fixtures/actions.ts";

const finish = (summary = "完成") => ({ type: "finish", summary });

const echo: ToolSet = { echo: { execute: (input) => input.text } };

/** A provider whose call never settles and that ignores its signal. */
const hangingProvider = (onCall: () => void = () => {}): Provider => ({
  complete() {
    onCall();
    return new Promise(() => {});
  },
});

describe("runAgent", () => {
  describe("the loop closes over observations", () => {
    it("writes a tool result into the next model request and finishes", async () => {
      const provider = replies(call("read_file", { path: "README.md" }), finish("读取完成"));
      const result = await runAgent(
        "读取 README",
        provider,
        { read_file: { execute: async () => ({ content: "hello" }) } },
        { maxSteps: 5, maxRepeatedActions: 2 },
      );
      expect(result).toMatchObject({
        status: "completed",
        code: "finished",
        summary: "读取完成",
        steps: 2,
      });
      expect(provider.requests[1]?.messages.at(-1)).toEqual({
        role: "tool",
        callId: "call_1",
        tool: "read_file",
        ok: true,
        content: '{"content":"hello"}',
        truncated: false,
        originalLength: 19,
      });
      provider.assertAllUsed();
    });

    it("starts every run with the task as a user message", async () => {
      const provider = replies(finish());
      await runAgent({ goal: "修 bug", constraints: ["只改 src/"] }, provider, {}, { maxSteps: 1 });
      expect(provider.requests[0]?.messages).toEqual([
        { role: "user", content: "修 bug\n约束：\n- 只改 src/" },
      ]);
    });

    it("appends a model message and asks again", async () => {
      const provider = replies(say("先想一想"), finish());
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result.status).toBe("completed");
      expect(provider.requests[1]?.messages.at(-1)).toEqual({
        role: "assistant",
        type: "message",
        content: "先想一想",
      });
    });

    it("keeps the model's callId and pairs the result with it", async () => {
      const provider = replies(call("echo", { text: "hi" }, "c-42"), finish());
      const result = await runAgent("任务", provider, echo, { maxSteps: 5 });
      expect(
        result.messages.filter((m) => m.role !== "user" && "callId" in m).map((m) => m.callId),
      ).toEqual(["c-42", "c-42"]);
    });

    it("tells the provider the step number and the registered tools", async () => {
      const provider = replies(say("a"), finish());
      await runAgent(
        "任务",
        provider,
        { echo: { description: "回显", execute: () => "" } },
        { maxSteps: 5 },
      );
      expect(provider.requests.map((r) => r.step)).toEqual([1, 2]);
      expect(provider.requests[0]?.tools).toEqual([
        { name: "echo", description: "回显", inputSchema: { type: "object" } },
      ]);
    });

    it("records the finish in the returned messages", async () => {
      const result = await runAgent("任务", replies(finish("好了")), {}, { maxSteps: 1 });
      expect(result.messages.at(-1)).toEqual({
        role: "assistant",
        type: "finish",
        summary: "好了",
      });
    });

    it("sums token usage over the run", async () => {
      const provider = createScriptedProvider([
        { action: say("a"), usage: { inputTokens: 10, outputTokens: 2 } },
        { action: finish(), usage: { inputTokens: 12, outputTokens: 3 } },
      ]);
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result.usage).toEqual({ inputTokens: 22, outputTokens: 5 });
    });
  });

  describe("budgets", () => {
    it("makes exactly two model calls with maxSteps 2, then returns budget_exceeded", async () => {
      const provider = replies(say("1"), say("2"), say("3"));
      const result = await runAgent("任务", provider, {}, { maxSteps: 2 });
      expect(result).toMatchObject({ status: "budget_exceeded", code: "max_steps", steps: 2 });
      expect(provider.requests).toHaveLength(2);
    });

    it("returns budget_exceeded after the second identical message with maxRepeatedActions 1", async () => {
      const provider = replies(say("同一句"), say("同一句"), finish());
      const result = await runAgent("任务", provider, {}, { maxSteps: 10, maxRepeatedActions: 1 });
      expect(result).toMatchObject({
        status: "budget_exceeded",
        code: "repeated_action",
        steps: 2,
      });
    });

    it("does not run a repeated tool call that only changed its callId and key order", async () => {
      const execute = vi.fn(() => "ok");
      const provider = replies(
        call("t", { a: 1, b: 2 }, "c1"),
        { ...call("t", { b: 2, a: 1 }, "c2") },
        finish(),
      );
      const result = await runAgent(
        "任务",
        provider,
        { t: { execute } },
        { maxSteps: 10, maxRepeatedActions: 1 },
      );
      expect(result).toMatchObject({
        status: "budget_exceeded",
        code: "repeated_action",
        toolCalls: 1,
      });
      expect(execute).toHaveBeenCalledTimes(1);
    });

    it("stops before a tool beyond maxToolCalls without running it", async () => {
      const execute = vi.fn(() => "ok");
      const provider = replies(call("t", { n: 1 }), call("t", { n: 2 }), finish());
      const result = await runAgent(
        "任务",
        provider,
        { t: { execute } },
        { maxSteps: 10, maxToolCalls: 1 },
      );
      expect(result).toMatchObject({
        status: "budget_exceeded",
        code: "max_tool_calls",
        toolCalls: 1,
        steps: 2,
      });
      expect(execute).toHaveBeenCalledTimes(1);
    });

    it("applies the task's own budget when it is tighter than the limits", async () => {
      const provider = replies(say("1"), say("2"), finish());
      const result = await runAgent(
        { goal: "任务", budgets: { maxSteps: 1 } },
        provider,
        {},
        { maxSteps: 5 },
      );
      expect(result).toMatchObject({ code: "max_steps", steps: 1 });
    });

    it("keeps the caller's limit when the task asks for more", async () => {
      const provider = replies(say("1"), say("2"), finish());
      const result = await runAgent(
        { goal: "任务", budgets: { maxSteps: 9 } },
        provider,
        {},
        { maxSteps: 1 },
      );
      expect(result).toMatchObject({ code: "max_steps", steps: 1 });
    });

    it("stops once the token budget is spent", async () => {
      const provider = createScriptedProvider([
        { action: say("a"), usage: { inputTokens: 50, outputTokens: 50 } },
        { action: finish() },
      ]);
      const result = await runAgent("任务", provider, {}, { maxSteps: 10, maxTokens: 100 });
      expect(result).toMatchObject({ status: "budget_exceeded", code: "max_tokens", steps: 1 });
      expect(provider.requests).toHaveLength(1);
    });

    it("stops once the injected clock passes maxDurationMs", async () => {
      let now = 0;
      const slowTool = {
        execute: () => {
          now += 30;
          return "ok";
        },
      };
      const provider = replies(call("slow", { n: 1 }), call("slow", { n: 2 }), finish());
      const result = await runAgent(
        "任务",
        provider,
        { slow: slowTool },
        { maxSteps: 10, maxDurationMs: 50 },
        undefined,
        {
          clock: () => now,
        },
      );
      expect(result).toMatchObject({
        status: "budget_exceeded",
        code: "max_duration",
        toolCalls: 2,
      });
      expect(provider.requests).toHaveLength(2);
    });
  });

  describe("failures", () => {
    it("fails on an unknown tool with its name, without counting a tool call", async () => {
      const result = await runAgent("任务", replies(call("rm_rf")), echo, { maxSteps: 5 });
      expect(result).toMatchObject({
        status: "failed",
        code: "unknown_tool",
        toolCalls: 0,
        steps: 1,
      });
      expect(result.reason).toContain("rm_rf");
      expect(result.reason).toContain("echo");
    });

    it.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
      "treats %s as an unknown tool, not an Object.prototype member",
      async (name) => {
        const result = await runAgent("任务", replies(call(name)), echo, { maxSteps: 5 });
        expect(result.code).toBe("unknown_tool");
      },
    );

    it("fails when a tool throws, with the tool's name and message, counting the call", async () => {
      const tools: ToolSet = {
        flaky: {
          execute: () => {
            throw new Error("磁盘已满");
          },
        },
      };
      const result = await runAgent("任务", replies(call("flaky"), finish()), tools, {
        maxSteps: 5,
      });
      expect(result).toMatchObject({ status: "failed", code: "tool_error", toolCalls: 1 });
      expect(result.reason).toBe("工具 flaky 失败：磁盘已满");
      expect(result.messages.at(-1)).toMatchObject({
        role: "tool",
        tool: "flaky",
        ok: false,
        error: { code: "tool_error", message: "磁盘已满" },
        content: '{"error":{"code":"tool_error","message":"磁盘已满"},"ok":false}',
      });
    });

    it("fails when a tool's promise rejects", async () => {
      const tools: ToolSet = { t: { execute: async () => Promise.reject(new Error("网络断开")) } };
      const result = await runAgent("任务", replies(call("t")), tools, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "tool_error" });
      expect(result.reason).toContain("网络断开");
    });

    it("fails on an invalid model reply with the reason, without counting a step", async () => {
      const result = await runAgent(
        "任务",
        replies({ type: "shell", cmd: "ls" }),
        {},
        { maxSteps: 5 },
      );
      expect(result).toMatchObject({ status: "failed", code: "invalid_action", steps: 0 });
      expect(result.reason).toContain('"shell"');
    });

    it("fails when the provider resolves to something that is not a response", async () => {
      const provider = { complete: async () => "finish" } as unknown as Provider;
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "invalid_action", steps: 0 });
    });

    it("fails when the provider rejects, with its message", async () => {
      const provider = createScriptedProvider([{ error: new Error("503 Service Unavailable") }]);
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "provider_error" });
      expect(result.reason).toContain("503 Service Unavailable");
    });

    it("fails when the provider throws synchronously", async () => {
      const provider: Provider = {
        complete() {
          throw new Error("同步抛错");
        },
      };
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    });

    it("fails loudly, naming the script, when a scripted provider runs out", async () => {
      const result = await runAgent("任务", replies(say("a")), {}, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "provider_error", steps: 1 });
      expect(result.reason).toContain("脚本用完了");
    });
  });

  describe("cancellation", () => {
    it("makes zero provider calls when the signal is already aborted", async () => {
      const complete = vi.fn();
      const controller = new AbortController();
      controller.abort();
      const result = await runAgent("任务", { complete }, {}, { maxSteps: 5 }, controller.signal);
      expect(result).toMatchObject({ status: "cancelled", code: "cancelled", steps: 0 });
      expect(complete).not.toHaveBeenCalled();
    });

    it("passes the run's signal to the provider and the tool", async () => {
      const controller = new AbortController();
      const seen: AbortSignal[] = [];
      const provider = replies(call("t"), finish());
      const original = provider.complete.bind(provider);
      const spy: Provider = {
        complete: (request: ModelRequest, signal: AbortSignal) => {
          seen.push(signal);
          return original(request, signal);
        },
      };
      const tools: ToolSet = {
        t: {
          execute: (_input, signal) => {
            seen.push(signal);
            return "ok";
          },
        },
      };
      await runAgent("任务", spy, tools, { maxSteps: 5 }, controller.signal);
      expect(seen).toEqual([controller.signal, controller.signal, controller.signal]);
    });

    it("ends cancelled when aborted during a tool, and never calls the provider again", async () => {
      const controller = new AbortController();
      const provider = replies(call("wait"), finish());
      const tools: ToolSet = {
        wait: {
          execute: (_input, signal) =>
            new Promise((_resolve, reject) => {
              signal.addEventListener("abort", () => reject(signal.reason));
              controller.abort();
            }),
        },
      };
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 }, controller.signal);
      expect(result).toMatchObject({ status: "cancelled", steps: 1, toolCalls: 1 });
      expect(provider.requests).toHaveLength(1);
    });

    it("ends cancelled when aborted during a tool that ignores the signal", async () => {
      const controller = new AbortController();
      const provider = replies(call("stuck"), finish());
      const tools: ToolSet = {
        stuck: {
          execute: () => {
            queueMicrotask(() => controller.abort());
            return new Promise(() => {});
          },
        },
      };
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 }, controller.signal);
      expect(result.status).toBe("cancelled");
      expect(provider.requests).toHaveLength(1);
      expect(result.messages.at(-1)).toMatchObject({ role: "tool", tool: "stuck", ok: false });
    });

    it("ends cancelled when the tool itself aborts the run before returning", async () => {
      const controller = new AbortController();
      const provider = replies(call("t"), finish());
      const tools: ToolSet = {
        t: {
          execute: () => {
            controller.abort();
            return "done";
          },
        },
      };
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 }, controller.signal);
      expect(result.status).toBe("cancelled");
      expect(provider.requests).toHaveLength(1);
    });

    it("checks the signal right after a tool completes, naming the tool", async () => {
      const controller = new AbortController();
      const provider = replies(call("echo", { text: "hi" }), finish());
      const result = await runAgent("任务", provider, echo, { maxSteps: 5 }, controller.signal, {
        // The sink runs after the tool settled and before the loop goes on: the abort lands in between.
        trace: (event) => {
          if (event.type === "tool_completed") controller.abort();
        },
      });
      expect(result).toMatchObject({ status: "cancelled", reason: "工具 echo 完成后运行被取消" });
      expect(provider.requests).toHaveLength(1);
    });

    it("ends cancelled when aborted during a provider call that ignores the signal", async () => {
      const controller = new AbortController();
      const provider = hangingProvider(() => queueMicrotask(() => controller.abort()));
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 }, controller.signal);
      expect(result).toMatchObject({ status: "cancelled", steps: 0 });
    });

    it("ends cancelled, not failed, when the provider rejects with an AbortError", async () => {
      const provider: Provider = {
        complete: async () => Promise.reject(new DOMException("aborted", "AbortError")),
      };
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result.status).toBe("cancelled");
    });

    it("ends cancelled when the scripted provider is aborted during a delayed turn", async () => {
      const controller = new AbortController();
      const provider = createScriptedProvider([{ action: finish(), delayMs: 60_000 }]);
      const run = runAgent("任务", provider, {}, { maxSteps: 5 }, controller.signal);
      controller.abort();
      await expect(run).resolves.toMatchObject({ status: "cancelled" });
    });
  });

  describe("isolation of the history", () => {
    it("rejects a provider's attempt to change the history and keeps it intact", async () => {
      const attempts: string[] = [];
      const inner = replies(say("a"), finish());
      const meddler: Provider = {
        complete(request, signal) {
          const messages = request.messages as unknown as { role: string; content: string }[];
          const tryTo = (name: string, change: () => void) => {
            try {
              change();
              attempts.push(`${name}: allowed`);
            } catch {
              attempts.push(`${name}: rejected`);
            }
          };
          tryTo("push", () => messages.push({ role: "user", content: "注入" }));
          tryTo("replace", () => {
            messages[0] = { role: "user", content: "注入" };
          });
          tryTo("edit", () => {
            (messages[0] as { content: string }).content = "注入";
          });
          tryTo("truncate", () => {
            messages.length = 0;
          });
          return inner.complete(request, signal);
        },
      };
      const result = await runAgent("原任务", meddler, {}, { maxSteps: 5 });
      expect(attempts.every((attempt) => attempt.endsWith("rejected"))).toBe(true);
      expect(result.status).toBe("completed");
      expect(inner.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(inner.requests[1]?.messages[0]).toEqual({ role: "user", content: "原任务" });
    });

    it("keeps an earlier recorded request unchanged by later steps", async () => {
      const provider = replies(say("1"), call("echo", { text: "x" }), say("2"), finish());
      await runAgent("任务", provider, echo, { maxSteps: 10 });
      expect(provider.requests.map((request) => request.messages.length)).toEqual([1, 2, 4, 5]);
      expect([...(provider.requests[0]?.messages ?? [])]).toEqual([
        { role: "user", content: "任务" },
      ]);
    });

    it("gives a tool a frozen copy of its input, so the tool cannot rewrite the recorded call", async () => {
      const provider = replies(call("t", { path: "a.ts", nested: { n: 1 } }), finish());
      const tools: ToolSet = {
        t: {
          execute: (input) => {
            expect(Object.isFrozen(input)).toBe(true);
            expect(() => {
              (input as { path: string }).path = "b.ts";
            }).toThrow(TypeError);
            return "ok";
          },
        },
      };
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 });
      expect(result.messages[1]).toMatchObject({ input: { path: "a.ts", nested: { n: 1 } } });
    });

    it("does not let the provider change a recorded tool call through its own action object", async () => {
      const action = { type: "tool_call", tool: "echo", input: { text: "原值", nested: { n: 1 } } };
      const provider = createScriptedProvider([{ action }, { action: finish() }]);
      const result = await runAgent("任务", provider, echo, { maxSteps: 5 });
      action.input.nested.n = 2;
      expect(result.messages[1]).toMatchObject({ input: { nested: { n: 1 } } });
    });
  });

  describe("observations", () => {
    it("bounds a huge tool result and records its original length", async () => {
      const provider = replies(call("big"), finish());
      const tools: ToolSet = { big: { execute: () => "x".repeat(1_000_000) } };
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 }, undefined, {
        maxObservationChars: 1_000,
      });
      const observation = result.messages[2];
      expect(observation).toMatchObject({
        role: "tool",
        ok: true,
        truncated: true,
        originalLength: 1_000_000,
      });
      expect(
        observation?.role === "tool" && observation.ok && observation.content.length,
      ).toBeLessThanOrEqual(1_000);
    });

    it("redacts secrets in a tool result before the model sees it", async () => {
      const key = `sk-proj-${"A1b2C3d4".repeat(4)}`;
      const provider = replies(call("env"), finish());
      const tools: ToolSet = { env: { execute: () => ({ config: { apiKey: key } }) } };
      await runAgent("任务", provider, tools, { maxSteps: 5 });
      expect(JSON.stringify(provider.requests[1]?.messages)).not.toContain(key);
    });
  });

  describe("tool contract and observations", () => {
    const strictEcho = (execute = vi.fn(({ text }: { text: string }) => text)) => ({
      execute,
      tools: {
        echo: defineTool({ inputSchema: z.strictObject({ text: z.string() }), execute }),
      } satisfies ToolSet,
    });

    it("writes invalid input back as invalid_input without running the tool, and the run goes on", async () => {
      const { execute, tools } = strictEcho();
      const provider = replies(
        call("echo", { text: 42 }, "c1"),
        call("echo", { text: "hi" }, "c2"),
        finish(),
      );
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
      expect(execute).toHaveBeenCalledTimes(1);
      expect(execute).toHaveBeenCalledWith({ text: "hi" }, expect.any(AbortSignal));
      const seen = provider.requests[1]?.messages.at(-1);
      expect(seen).toMatchObject({
        role: "tool",
        callId: "c1",
        tool: "echo",
        ok: false,
        error: {
          code: "invalid_input",
          issues: [{ path: "text", message: "Invalid input: expected string, received number" }],
        },
      });
      expect(JSON.parse((seen as { content: string }).content)).toEqual({
        ok: false,
        error: (seen as { error: unknown }).error,
      });
    });

    it("answers a call whose arguments the provider could not read with invalid_input, without running the tool", async () => {
      const { execute, tools } = strictEcho();
      const unreadable = { ...call("echo", {}, "c1"), inputError: "参数不是合法 JSON：{text:" };
      const provider = replies(unreadable, call("echo", { text: "hi" }, "c2"), finish());
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
      expect(execute).toHaveBeenCalledTimes(1);
      expect(provider.requests[1]?.messages.slice(1)).toMatchObject([
        { role: "assistant", type: "tool_call", callId: "c1", input: {} },
        {
          role: "tool",
          callId: "c1",
          ok: false,
          error: {
            code: "invalid_input",
            issues: [{ path: "(root)", message: "参数不是合法 JSON：{text:" }],
          },
        },
      ]);
    });

    it("writes an error the tool returns back with its code, and the run goes on", async () => {
      const tools: ToolSet = {
        read_file: {
          execute: (input) =>
            input.path === "a.ts"
              ? "content"
              : toolError("not_found", `没有 ${String(input.path)}`),
        },
      };
      const provider = replies(
        call("read_file", { path: "b.ts" }),
        call("read_file", { path: "a.ts" }),
        finish(),
      );
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "completed", toolCalls: 2 });
      expect(provider.requests[1]?.messages.at(-1)).toEqual({
        role: "tool",
        callId: "call_1",
        tool: "read_file",
        ok: false,
        error: { code: "not_found", message: "没有 b.ts" },
        content: '{"error":{"code":"not_found","message":"没有 b.ts"},"ok":false}',
      });
    });

    it("answers every call with one tool message right after it, in order, paired by callId", async () => {
      const { tools } = strictEcho();
      const provider = replies(
        call("echo", { text: "a" }, "x"),
        call("echo", {}, "y"),
        call("echo", { text: "c" }, "z"),
        finish(),
      );
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 });
      const pairs = result.messages.flatMap((message, index) =>
        message.role === "assistant" && message.type === "tool_call"
          ? [[message.callId, result.messages[index + 1]]]
          : [],
      );
      expect(pairs).toEqual([
        ["x", expect.objectContaining({ role: "tool", callId: "x", ok: true, content: "a" })],
        ["y", expect.objectContaining({ role: "tool", callId: "y", ok: false })],
        ["z", expect.objectContaining({ role: "tool", callId: "z", ok: true, content: "c" })],
      ]);
    });

    it("does not count invalid input against maxToolCalls: it counts executions, not requests", async () => {
      const { execute, tools } = strictEcho();
      const provider = replies(call("echo", {}), call("echo", { text: "1" }), finish());
      const result = await runAgent("任务", provider, tools, { maxSteps: 5, maxToolCalls: 1 });
      expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
      expect(execute).toHaveBeenCalledTimes(1);
    });

    it("stops budget_exceeded on the fifth tool error in a row by default", async () => {
      const { execute, tools } = strictEcho();
      const bad = Array.from({ length: 6 }, (_, n) => call("echo", { n }));
      const provider = replies(...bad);
      const result = await runAgent("任务", provider, tools, { maxSteps: 10 });
      expect(result).toMatchObject({
        status: "budget_exceeded",
        code: "max_tool_errors",
        steps: 5,
        toolCalls: 0,
      });
      expect(result.messages.at(-1)).toMatchObject({ role: "tool", ok: false });
      expect(execute).not.toHaveBeenCalled();
    });

    it("resets the error count after a success", async () => {
      const { tools } = strictEcho();
      const provider = replies(
        call("echo", { n: 1 }),
        call("echo", { text: "ok" }),
        call("echo", { n: 2 }),
        finish(),
      );
      const result = await runAgent("任务", provider, tools, { maxSteps: 10, maxToolErrors: 2 });
      expect(result).toMatchObject({ status: "completed" });
    });

    it("applies the task's maxToolErrors when it is tighter", async () => {
      const { tools } = strictEcho();
      const provider = replies(call("echo", { n: 1 }), finish());
      const result = await runAgent(
        { goal: "任务", budgets: { maxToolErrors: 1 } },
        provider,
        tools,
        { maxSteps: 10, maxToolErrors: 3 },
      );
      expect(result).toMatchObject({ code: "max_tool_errors", steps: 1 });
    });

    it("still fails on a tool that throws: a throw is unexpected, not an observation", async () => {
      const tools: ToolSet = {
        t: {
          execute: () => {
            throw Object.assign(new Error("bug"), { code: "ENOENT" });
          },
        },
      };
      const result = await runAgent("任务", replies(call("t"), finish()), tools, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "tool_error" });
    });

    it("fails with tool_error when the schema itself throws", async () => {
      const tools: ToolSet = {
        t: {
          inputSchema: z.object({}).refine(() => {
            throw new Error("schema bug");
          }),
          execute: vi.fn(),
        },
      };
      const result = await runAgent("任务", replies(call("t"), finish()), tools, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "tool_error", toolCalls: 0 });
      expect(result.reason).toContain("schema bug");
    });

    it("treats a value that merely looks like an error as a value", async () => {
      const tools: ToolSet = { t: { execute: () => ({ ok: false, error: "no code" }) } };
      const provider = replies(call("t"), finish());
      await runAgent("任务", provider, tools, { maxSteps: 5 });
      expect(provider.requests[1]?.messages.at(-1)).toMatchObject({
        ok: true,
        content: '{"error":"no code","ok":false}',
      });
    });

    it("redacts and bounds what a tool puts in its error", async () => {
      const key = `ghp_${"a".repeat(36)}`;
      const tools: ToolSet = {
        t: { execute: () => toolError("denied", `token ${key} ${"x".repeat(5_000)}`) },
      };
      const provider = replies(call("t"), finish());
      await runAgent("任务", provider, tools, { maxSteps: 5 }, undefined, {
        redact: createRedactor({ env: {} }),
        maxObservationChars: 500,
      });
      const seen = provider.requests[1]?.messages.at(-1);
      expect(JSON.stringify(seen)).not.toContain(key);
      expect((seen as { error: { message: string } }).error.message.length).toBeLessThanOrEqual(
        500,
      );
      expect((seen as { content: string }).content.length).toBeLessThanOrEqual(500);
    });
  });

  describe("a reply of several actions", () => {
    const batch = (...actions: unknown[]) => ({ actions });
    const script = (...turns: ({ actions: unknown[] } | { action: unknown })[]) =>
      createScriptedProvider(turns);

    it("records the whole reply, then answers every call in order before the next request", async () => {
      const ran: string[] = [];
      const tools: ToolSet = {
        echo: {
          execute: (input) => {
            ran.push(String(input.text));
            return input.text;
          },
        },
      };
      const provider = script(
        batch(say("先看两处"), call("echo", { text: "a" }, "A"), call("echo", { text: "b" }, "B")),
        { action: finish() },
      );
      const result = await runAgent("任务", provider, tools, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "completed", steps: 2, toolCalls: 2 });
      expect(ran).toEqual(["a", "b"]);
      expect(provider.requests[1]?.messages.slice(1)).toMatchObject([
        { role: "assistant", type: "message", content: "先看两处" },
        { role: "assistant", type: "tool_call", callId: "A", input: { text: "a" } },
        { role: "assistant", type: "tool_call", callId: "B", input: { text: "b" } },
        { role: "tool", callId: "A", ok: true, content: "a" },
        { role: "tool", callId: "B", ok: true, content: "b" },
      ]);
    });

    it("gives calls without an id distinct ids, each paired with its result", async () => {
      const provider = script(batch(call("echo", { text: "a" }), call("echo", { text: "b" })), {
        action: finish(),
      });
      const result = await runAgent("任务", provider, echo, { maxSteps: 5 });
      const ids = result.messages.map((message) => ("callId" in message ? message.callId : "-"));
      expect(ids).toEqual(["-", "call_1_1", "call_1_2", "call_1_1", "call_1_2", "-"]);
    });

    it("answers the calls it did not run when the run stops midway", async () => {
      const provider = script(batch(call("nope", {}, "A"), call("echo", { text: "b" }, "B")));
      const result = await runAgent("任务", provider, echo, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "unknown_tool", toolCalls: 0 });
      expect(result.messages.slice(3)).toMatchObject([
        { role: "tool", callId: "A", ok: false },
        {
          role: "tool",
          callId: "B",
          ok: false,
          error: { code: "not_run", message: expect.stringContaining("未执行") },
        },
      ]);
    });

    it("rejects a finish that shares a reply with other actions", async () => {
      const provider = script(batch(call("echo", { text: "a" }), finish()));
      const result = await runAgent("任务", provider, echo, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "invalid_action", toolCalls: 0 });
      expect(result.reason).toContain("actions[1]");
    });

    it("rejects a reply that gives both action and actions", async () => {
      const provider: Provider = {
        complete: async () => ({ action: finish(), actions: [finish()] }),
      };
      const result = await runAgent("任务", provider, {}, { maxSteps: 5 });
      expect(result).toMatchObject({ status: "failed", code: "invalid_action" });
    });

    it("counts a reply as one step and stops when the whole reply repeats", async () => {
      const twice = () => batch(call("echo", { text: "a" }), call("echo", { text: "b" }));
      const provider = script(twice(), twice());
      const result = await runAgent("任务", provider, echo, {
        maxSteps: 5,
        maxRepeatedActions: 1,
      });
      expect(result).toMatchObject({ code: "repeated_action", steps: 2, toolCalls: 2 });
    });
  });

  describe("caller mistakes", () => {
    it("throws InvalidTaskError for a blank goal", async () => {
      await expect(runAgent(" ", replies(finish()), {}, { maxSteps: 1 })).rejects.toBeInstanceOf(
        InvalidTaskError,
      );
    });

    it("throws InvalidLimitsError for negative limits", async () => {
      await expect(
        runAgent("任务", replies(finish()), {}, { maxSteps: -1 }),
      ).rejects.toBeInstanceOf(InvalidLimitsError);
    });
  });
});

describe("statusOf", () => {
  it.each([
    ["finished", "completed"],
    ["max_steps", "budget_exceeded"],
    ["max_tool_calls", "budget_exceeded"],
    ["max_tool_errors", "budget_exceeded"],
    ["max_tokens", "budget_exceeded"],
    ["max_duration", "budget_exceeded"],
    ["model_timeout", "budget_exceeded"],
    ["repeated_action", "budget_exceeded"],
    ["cancelled", "cancelled"],
    ["unknown_tool", "failed"],
    ["tool_error", "failed"],
    ["invalid_action", "failed"],
    ["provider_error", "failed"],
    ["permission_denied", "blocked"],
    ["loop_detected", "budget_exceeded"],
    ["context_exhausted", "budget_exceeded"],
    ["max_cost", "budget_exceeded"],
    ["finish_rejected", "failed"],
    ["extension_error", "failed"],
    ["state_failed", "failed"],
    ["replay_diverged", "failed"],
    ["trace_failed", "failed"],
  ] as const)("maps %s to %s", (code, status) => {
    expect(statusOf(code)).toBe(status);
  });

  it("throws for a code it does not know (a caller outside TypeScript), naming it", () => {
    expect(() => statusOf("bogus" as never)).toThrow(new TypeError("unhandled stop code bogus"));
  });
});
