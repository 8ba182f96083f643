/**
 * Typed hooks (lesson 36) on the extension interface: a veto, a rewrite of a call's input
 * (validated again, still under the tool's own permission check), a rewrite of a result
 * (redacted afterwards), a vetoed finish through the rejection path, and a hook that breaks.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgent } from "../src/agent-loop.ts";
import type { RunExtension, ToolCallInfo } from "../src/extension.ts";
import { createHookExtension, HOOK_DENIED, type Hooks } from "../src/hooks.ts";
import type { Message } from "../src/messages.ts";
import { createRedactor } from "../src/redact.ts";
import { blockRun, defineTool, type ToolSet } from "../src/tools.ts";
import { call, replies } from "./fixtures/actions.ts";

const finish = { type: "finish", summary: "完成" };
const toolMessages = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === "tool");

function echoTools(seen: unknown[]): ToolSet {
  return {
    echo: defineTool({
      inputSchema: z.object({ text: z.string() }),
      execute: (input) => {
        seen.push(input);
        return `echo:${input.text}`;
      },
    }),
  };
}

function run(hooks: Hooks, tools: ToolSet, script: unknown[], extensions: RunExtension[] = []) {
  return runAgent("目标", replies(...script), tools, { maxSteps: 6 }, undefined, {
    extensions: [createHookExtension(hooks), ...extensions],
    redact: createRedactor({ env: {}, secrets: ["hunter2-secret-value"] }),
  });
}

describe("preToolUse", () => {
  it("a veto answers the call hook_denied, the tool never runs, and the run goes on", async () => {
    const seen: unknown[] = [];
    const result = await run(
      { name: "guard", preToolUse: () => ({ kind: "veto", message: "不许 echo" }) },
      echoTools(seen),
      [call("echo", { text: "a" }), finish],
    );
    expect(seen).toEqual([]);
    expect(result).toMatchObject({ status: "completed", toolCalls: 0 });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: HOOK_DENIED, message: "不许 echo" } },
    ]);
  });

  it("a rewrite reaches the tool, and every later extension sees the rewritten input", async () => {
    const seen: unknown[] = [];
    const later: unknown[] = [];
    const result = await run(
      { name: "rw", preToolUse: () => ({ kind: "rewrite", input: { text: "b" } }) },
      echoTools(seen),
      [call("echo", { text: "a" }), finish],
      [{ name: "later", beforeToolCall: (info: ToolCallInfo) => void later.push(info.input) }],
    );
    expect(seen).toEqual([{ text: "b" }]);
    expect(later).toEqual([{ text: "b" }]);
    expect(toolMessages(result.messages)).toMatchObject([{ ok: true, content: "echo:b" }]);
  });

  it("a rewrite the tool's schema refuses is invalid_input and does not run", async () => {
    const seen: unknown[] = [];
    const result = await run(
      { name: "rw", preToolUse: () => ({ kind: "rewrite", input: { text: 42 } }) },
      echoTools(seen),
      [call("echo", { text: "a" }), finish],
    );
    expect(seen).toEqual([]);
    const [message] = toolMessages(result.messages);
    expect(message).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(message?.role === "tool" && !message.ok && message.error.message).toContain(
      "扩展 rw 改写后的输入无效",
    );
  });

  it("a rewrite still goes through the tool's own permission check, with the new input", async () => {
    const asked: unknown[] = [];
    const ran: unknown[] = [];
    const tools: ToolSet = {
      run_command: defineTool({
        inputSchema: z.object({ argv: z.array(z.string()) }),
        authorize: (input) => {
          asked.push(input);
          return input.argv[0] === "ls" ? undefined : blockRun(`不允许 ${input.argv[0]}`);
        },
        execute: (input) => {
          ran.push(input);
          return "ran";
        },
      }),
    };
    const result = await run(
      { name: "rw", preToolUse: () => ({ kind: "rewrite", input: { argv: ["rm", "-rf", "/"] } }) },
      tools,
      [call("run_command", { argv: ["ls"] }), finish],
    );
    expect(asked).toEqual([{ argv: ["rm", "-rf", "/"] }]);
    expect(ran).toEqual([]);
    expect(result).toMatchObject({ status: "blocked", code: "permission_denied", toolCalls: 0 });
  });

  it("a hook that throws fails closed: the call does not run", async () => {
    const seen: unknown[] = [];
    const result = await run(
      {
        name: "broken",
        preToolUse: () => {
          throw new Error("boom");
        },
      },
      echoTools(seen),
      [call("echo", { text: "a" }), finish],
    );
    expect(seen).toEqual([]);
    expect(result).toMatchObject({ status: "failed", code: "tool_error", toolCalls: 0 });
  });

  it("an answer that is not a verdict fails closed", async () => {
    const seen: unknown[] = [];
    const result = await run(
      { name: "odd", preToolUse: () => ({ kind: "block" }) as never },
      echoTools(seen),
      [call("echo", { text: "a" }), finish],
    );
    expect(seen).toEqual([]);
    expect(result.status).toBe("failed");
  });
});

describe("postToolUse", () => {
  it("a rewritten result is what the model sees, redacted afterwards", async () => {
    const result = await run(
      {
        name: "rw",
        postToolUse: () => ({ kind: "rewrite", result: { leaked: "token hunter2-secret-value" } }),
      },
      echoTools([]),
      [call("echo", { text: "a" }), finish],
    );
    const text = JSON.stringify(result.messages);
    expect(text).not.toContain("hunter2-secret-value");
    expect(toolMessages(result.messages)[0]).toMatchObject({ ok: true });
    expect(toolMessages(result.messages)[0]?.content).toContain("leaked");
  });

  it("a veto replaces the value by a hook_denied error", async () => {
    const result = await run(
      { name: "deny", postToolUse: () => ({ kind: "veto", message: "结果不能给模型" }) },
      echoTools([]),
      [call("echo", { text: "a" }), finish],
    );
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(toolMessages(result.messages)).toMatchObject([
      { ok: false, error: { code: HOOK_DENIED, message: "结果不能给模型" } },
    ]);
  });

  it("a veto is an error to every later extension (a state log records it as one)", async () => {
    const seen: unknown[] = [];
    const later: RunExtension = {
      name: "log",
      afterToolCall: (_call, result) => void seen.push(result),
    };
    await run(
      { name: "deny", postToolUse: () => ({ kind: "veto", message: "不给看" }) },
      echoTools([]),
      [call("echo", { text: "a" }), finish],
      [later],
    );
    expect(seen).toEqual([{ ok: false, error: { code: HOOK_DENIED, message: "不给看" } }]);
  });

  it("is asked only about calls that ran and succeeded, with the value", async () => {
    const asked: unknown[] = [];
    const answering: RunExtension = {
      name: "answers",
      beforeToolCall: (info) =>
        info.input.text === "answered" ? { kind: "answer", value: "from the log" } : undefined,
    };
    const hooks: Hooks = {
      name: "watch",
      postToolUse: (_call, value) => {
        asked.push(value);
        return undefined;
      },
    };
    const result = await runAgent(
      "目标",
      replies(
        call("echo", { text: "answered" }),
        call("echo", { text: 1 }),
        call("echo", { text: "ran" }),
        finish,
      ),
      echoTools([]),
      { maxSteps: 6 },
      undefined,
      { extensions: [answering, createHookExtension(hooks)] },
    );
    expect(result.status).toBe("completed");
    expect(asked).toEqual(["echo:ran"]);
  });
});

describe("stop", () => {
  it("a veto rejects the finish with reason hook_denied; the rejections limit ends the run", async () => {
    let asked = 0;
    const result = await runAgent("目标", replies(finish, finish), {}, { maxSteps: 6 }, undefined, {
      maxFinishRejections: 2,
      extensions: [
        createHookExtension({
          name: "stop",
          stop: () => {
            asked += 1;
            return { kind: "veto", message: "先跑测试" };
          },
        }),
      ],
    });
    expect(asked).toBe(2);
    expect(result).toMatchObject({ status: "failed", code: "finish_rejected" });
    expect(result.messages.filter((message) => message.role === "user").slice(1)).toMatchObject([
      { type: "finish_rejected", reasons: [HOOK_DENIED], content: "先跑测试" },
      { type: "finish_rejected", reasons: [HOOK_DENIED], content: "先跑测试" },
    ]);
  });

  it("an allow accepts the finish", async () => {
    const result = await run({ name: "ok", stop: () => ({ kind: "allow" }) }, {}, [finish]);
    expect(result).toMatchObject({ status: "completed", summary: "完成" });
  });
});

describe("beforeModelCall", () => {
  it("a veto ends the run blocked before the model is asked", async () => {
    const result = await run(
      { name: "quiet", beforeModelCall: () => ({ kind: "veto", message: "今天不调用模型" }) },
      {},
      [finish],
    );
    expect(result).toMatchObject({ status: "blocked", code: "permission_denied", steps: 0 });
    expect(result.reason).toContain("今天不调用模型");
  });

  it("a hooks object with no points is an extension that asks nothing", () => {
    const extension = createHookExtension({ name: "empty" });
    expect(Object.keys(extension)).toEqual(["name"]);
  });
});

describe("the verdicts a hook may give, checked before they take effect", () => {
  /** A provider that keeps every request it is asked and always finishes. */
  function recordingModel() {
    const requests: Array<{ messages: readonly Message[] }> = [];
    return {
      requests,
      provider: {
        async complete(request: { messages: readonly Message[] }) {
          requests.push(request);
          return { action: finish };
        },
      },
    };
  }
  const withHooks = (hooks: Hooks, provider: ReturnType<typeof recordingModel>["provider"]) =>
    runAgent("目标", provider, {}, { maxSteps: 3 }, undefined, {
      extensions: [createHookExtension(hooks)],
    });

  it.each([
    ["undefined", undefined],
    ["null", null],
  ])("beforeModelCall answering %s allows the call unchanged", async (_name, answer) => {
    const model = recordingModel();
    const result = await withHooks(
      { name: "quiet", beforeModelCall: () => answer as never },
      model.provider,
    );
    expect(result).toMatchObject({ status: "completed" });
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]?.messages)).not.toContain("附加说明");
  });

  it("beforeModelCall's rewrite is the request the model gets", async () => {
    const model = recordingModel();
    const result = await withHooks(
      {
        name: "context",
        beforeModelCall: (request) => ({
          kind: "rewrite",
          request: {
            ...request,
            messages: [...request.messages, { role: "user", content: "附加说明：先读 README" }],
          },
        }),
      },
      model.provider,
    );
    expect(result).toMatchObject({ status: "completed" });
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({ content: "附加说明：先读 README" });
  });

  it.each([
    ["a veto without a message", { kind: "veto" }, "的 veto 缺少 message"],
    ["an unknown kind", { kind: "bogus" }, "返回了无效的决定"],
    ["a kind that is not a string", { kind: 42 }, "返回了无效的决定"],
  ])("preToolUse giving %s fails closed, naming the hook", async (_name, answer, message) => {
    const seen: unknown[] = [];
    const result = await run({ name: "odd", preToolUse: () => answer as never }, echoTools(seen), [
      call("echo", { text: "a" }),
      finish,
    ]);
    expect(seen).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.reason).toContain(`hook odd ${message}`);
  });

  it("postToolUse's rewrite without a result fails closed instead of answering undefined", async () => {
    const seen: unknown[] = [];
    const result = await run(
      { name: "post", postToolUse: () => ({ kind: "rewrite" }) as never },
      echoTools(seen),
      [call("echo", { text: "a" }), finish],
    );
    expect(seen).toEqual([{ text: "a" }]);
    expect(result.status).toBe("failed");
    expect(result.reason).toContain("hook post 的 rewrite 缺少 result");
  });

  it("a stop hook may not rewrite: only allow or veto", async () => {
    const result = await run({ name: "stopper", stop: () => ({ kind: "rewrite" }) as never }, {}, [
      finish,
    ]);
    expect(result.status).toBe("failed");
    expect(result.reason).toContain("hook stopper 返回了无效的决定");
  });
});
