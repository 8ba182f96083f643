import { createModelRequest, runAgent, type ToolSet } from "@coding-agent/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenAICompatibleProvider, InvalidProviderOptionsError } from "../src/index.ts";
import { type FakeModelServer, type FakeTurn, startFakeModelServer } from "../src/testing/index.ts";

const KEY = `sk-proj-${"Te5tKey0".repeat(4)}`;
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server that requires KEY, or (`null`) no key at all, as a local server does. */
async function serve(script: readonly FakeTurn[], apiKey: string | null = KEY) {
  const server = await startFakeModelServer({
    script,
    ...(apiKey === null ? {} : { apiKey }),
  });
  servers.push(server);
  return server;
}

const providerFor = (server: FakeModelServer, apiKey: string | undefined = KEY) =>
  createOpenAICompatibleProvider({
    model: "gpt-test",
    baseUrl: server.openaiBaseUrl,
    ...(apiKey === undefined ? {} : { apiKey }),
  });

const calls: string[] = [];
const tools: ToolSet = {
  echo: {
    description: "返回 text",
    execute: (input) => {
      calls.push(String(input.text));
      return input.text;
    },
  },
};
afterEach(() => {
  calls.length = 0;
});

/** The body of the server's `index`-th request, as sent. */
const sent = (server: FakeModelServer, index: number) =>
  (server.requests[index]?.body ?? {}) as {
    messages?: unknown[];
    tools?: { function: { parameters: unknown } }[];
  };

const run = (server: FakeModelServer, apiKey?: string) =>
  runAgent("说你好", providerFor(server, apiKey ?? KEY), tools, { maxSteps: 5 });

describe("createOpenAICompatibleProvider", () => {
  describe("the system prompt", () => {
    it("sends the request's own system prompt first, over the provider's option", async () => {
      const server = await serve([{ text: "好" }, { text: "好" }]);
      const provider = createOpenAICompatibleProvider({
        model: "gpt-test",
        baseUrl: server.openaiBaseUrl,
        apiKey: KEY,
        system: "选项里的提示",
      });
      const base = { task: { goal: "说你好" }, messages: [], step: 1, tools: [] };
      const signal = new AbortController().signal;
      await provider.complete(createModelRequest({ ...base, system: "请求里的提示" }), signal);
      await provider.complete(createModelRequest(base), signal);
      expect(sent(server, 0).messages?.[0]).toEqual({ role: "system", content: "请求里的提示" });
      expect(sent(server, 1).messages?.[0]).toEqual({ role: "system", content: "选项里的提示" });
    });
  });

  describe("a conversation", () => {
    it("calls echo once, sends its result back under the call's id, and finishes with the text", async () => {
      const server = await serve([
        {
          calls: [{ name: "echo", input: { text: "你好" } }],
          usage: { inputTokens: 10, outputTokens: 3 },
        },
        { text: "已说：你好", usage: { inputTokens: 20, outputTokens: 4 } },
      ]);
      const result = await run(server);
      expect(result).toMatchObject({
        status: "completed",
        summary: "已说：你好",
        steps: 2,
        toolCalls: 1,
        usage: { inputTokens: 30, outputTokens: 7 },
      });
      expect(server.rejected).toEqual([]);
      expect(server.requests[1]?.body).toMatchObject({
        model: "gpt-test",
        messages: [
          { role: "user", content: "说你好" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_fake0001",
                type: "function",
                function: { name: "echo", arguments: '{"text":"你好"}' },
              },
            ],
          },
          { role: "tool", tool_call_id: "call_fake0001", content: "你好" },
        ],
      });
    });

    it("posts to <base>/chat/completions with the key as a Bearer token and each tool's JSON Schema", async () => {
      const server = await serve([{ text: "好" }]);
      const provider = providerFor(server);
      const schemaTools: ToolSet = {
        echo: {
          description: "返回 text",
          inputSchema: z.object({ text: z.string() }),
          execute: (input) => input.text,
        } as ToolSet[string],
      };
      await runAgent("任务", provider, schemaTools, { maxSteps: 1 });
      const request = server.requests[0];
      expect(request?.path).toBe("/v1/chat/completions");
      expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request?.body).toMatchObject({
        tools: [{ type: "function", function: { name: "echo", description: "返回 text" } }],
      });
      expect(sent(server, 0).tools?.[0]?.function.parameters).toMatchObject({ type: "object" });
    });

    it("sends no Authorization header without a key, as local servers expect", async () => {
      const server = await serve([{ text: "好" }], null);
      await run(server, "");
      expect(server.requests[0]?.headers.authorization).toBeUndefined();
    });

    it("runs every tool call of one reply in order and answers each before the next request", async () => {
      const server = await serve([
        {
          text: "两件事",
          calls: [
            { name: "echo", input: { text: "一" } },
            { name: "echo", input: { text: "二" } },
          ],
        },
        { text: "完成" },
      ]);
      const result = await run(server);
      expect(result).toMatchObject({ status: "completed", steps: 2, toolCalls: 2 });
      expect(calls).toEqual(["一", "二"]);
      expect(server.rejected).toEqual([]);
      expect(sent(server, 1).messages?.slice(1)).toMatchObject([
        {
          role: "assistant",
          content: "两件事",
          tool_calls: [{ id: "call_fake0001" }, { id: "call_fake0002" }],
        },
        { role: "tool", tool_call_id: "call_fake0001", content: "一" },
        { role: "tool", tool_call_id: "call_fake0002", content: "二" },
      ]);
    });
  });

  describe("servers that deviate from the spec", () => {
    it("accepts arguments sent as an object and a call without an id, answering under an invented id", async () => {
      const server = await serve(
        [{ calls: [{ name: "echo", id: null, arguments: { text: "对象" } }] }, { text: "好" }],
        null,
      );
      const result = await run(server, "");
      expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
      expect(calls).toEqual(["对象"]);
      expect(server.rejected).toEqual([]);
      expect(sent(server, 1).messages?.slice(1)).toMatchObject([
        { tool_calls: [{ id: "call_1_1", function: { arguments: '{"text":"对象"}' } }] },
        { role: "tool", tool_call_id: "call_1_1" },
      ]);
    });
  });

  describe("arguments that are not JSON", () => {
    it("answers the call invalid_input without running the tool, and the model corrects itself", async () => {
      const server = await serve([
        { calls: [{ name: "echo", arguments: '{"text": "你好"' }] },
        { calls: [{ name: "echo", input: { text: "你好" } }] },
        { text: "好了" },
      ]);
      const result = await run(server);
      expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
      expect(calls).toEqual(["你好"]);
      expect(server.rejected).toEqual([]);
      const answer = sent(server, 1).messages?.at(-1) as { role: string; content: string };
      expect(answer.role).toBe("tool");
      expect(JSON.parse(answer.content)).toMatchObject({
        ok: false,
        error: {
          code: "invalid_input",
          issues: [{ message: expect.stringContaining("参数不是合法 JSON") }],
        },
      });
    });
  });

  describe("failures become provider_error", () => {
    it("reports a wrong key as HTTP 401 with the API's message, never the key", async () => {
      const server = await serve([{ text: "不会到这里" }]);
      const wrong = `sk-proj-${"Wr0ngKey".repeat(4)}`;
      const result = await run(server, wrong);
      expect(result).toMatchObject({ status: "failed", code: "provider_error" });
      expect(result.reason).toContain("HTTP 401");
      expect(result.reason).toContain("Incorrect API key provided");
      expect(result.reason).not.toContain(wrong);
      expect(server.remaining).toBe(1);
    });

    it("reports a server error with its status and body", async () => {
      const server = await serve([{ status: 503, body: { error: { message: "overloaded" } } }]);
      const result = await run(server);
      expect(result).toMatchObject({ code: "provider_error" });
      expect(result.reason).toMatch(/HTTP 503.*overloaded/);
    });

    it("reports a body that is not JSON", async () => {
      const server = await serve([{ raw: "<html>bad gateway</html>" }]);
      const result = await run(server);
      expect(result).toMatchObject({ code: "provider_error" });
      expect(result.reason).toContain("不是 JSON（HTTP 200）");
      expect(result.reason).toContain("<html>bad gateway</html>");
    });

    it("reports a JSON body that is not a chat completion", async () => {
      const server = await serve([{ status: 200, body: { choices: [] } }]);
      const result = await run(server);
      expect(result).toMatchObject({ code: "provider_error" });
      expect(result.reason).toContain("不符合文档中的结构");
      expect(result.reason).toContain("choices");
    });

    it("names a wrong field inside a list by its index, as every zod message does", async () => {
      const server = await serve([{ status: 200, body: { choices: [{ message: 5 }] } }]);
      const result = await run(server);
      expect(result.reason).toContain("不符合文档中的结构（HTTP 200）：choices[0].message: ");
    });

    it("bounds the body excerpt and masks the key inside it", async () => {
      const body = { error: { message: `echo ${KEY} ${"x".repeat(50_000)}` } };
      const server = await serve([{ status: 400, body }]);
      const result = await run(server);
      expect(result.reason).not.toContain(KEY);
      expect(result.reason.length).toBeLessThan(700);
      expect(result.reason).toContain("truncated");
    });

    it("reports a refused connection", async () => {
      const server = await serve([]);
      const provider = providerFor(server);
      await server.close();
      servers.length = 0;
      const result = await runAgent("任务", provider, tools, { maxSteps: 1 });
      expect(result).toMatchObject({ code: "provider_error" });
      expect(result.reason).toContain("ECONNREFUSED");
    });
  });

  describe("cancellation", () => {
    it("aborts the request when the run's signal fires", async () => {
      const server = await serve([{ hang: true }]);
      const provider = providerFor(server);
      const controller = new AbortController();
      const pending = provider.complete(
        {
          task: { goal: "任务" },
          messages: [{ role: "user", content: "任务" }],
          step: 1,
          tools: [],
        },
        controller.signal,
      );
      await expect.poll(() => server.requests.length).toBe(1);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    });

    it("ends the run budget_exceeded / model_timeout when the server never answers within modelTimeoutMs", async () => {
      const server = await serve([{ hang: true }]);
      const result = await runAgent("任务", providerFor(server), tools, {
        maxSteps: 5,
        modelTimeoutMs: 100,
      });
      // Whether the request reached the server in time or not, the run is not kept waiting.
      expect(result).toMatchObject({ status: "budget_exceeded", code: "model_timeout", steps: 0 });
    });
  });

  describe("options", () => {
    it("throws for a missing model or a base URL that is not http(s)", () => {
      expect(() => createOpenAICompatibleProvider({ model: " " })).toThrow(
        InvalidProviderOptionsError,
      );
      expect(() =>
        createOpenAICompatibleProvider({ model: "m", baseUrl: "ftp://example.com/v1" }),
      ).toThrow(InvalidProviderOptionsError);
    });
  });
});
