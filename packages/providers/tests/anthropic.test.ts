import { runAgent, type ToolSet } from "@coding-agent/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicProvider, InvalidProviderOptionsError } from "../src/index.ts";
import { type FakeModelServer, type FakeTurn, startFakeModelServer } from "../src/testing/index.ts";

const KEY = `sk-ant-api03-${"Te5tKey0".repeat(4)}`;
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: readonly FakeTurn[]) {
  const server = await startFakeModelServer({ script, apiKey: KEY });
  servers.push(server);
  return server;
}

const providerFor = (server: FakeModelServer, apiKey = KEY, maxTokens?: number) =>
  createAnthropicProvider({
    model: "claude-test",
    baseUrl: server.anthropicBaseUrl,
    apiKey,
    ...(maxTokens === undefined ? {} : { maxTokens }),
  });

/** The body of the server's `index`-th request, as sent. */
const sent = (server: FakeModelServer, index: number) =>
  (server.requests[index]?.body ?? {}) as { messages?: unknown[]; max_tokens?: number };

const ran: string[] = [];
afterEach(() => {
  ran.length = 0;
});
const tools: ToolSet = {
  echo: {
    description: "返回 text",
    execute: (input) => {
      ran.push(String(input.text));
      return input.text;
    },
  },
  fail: { execute: () => ({ ok: false, error: { code: "not_found", message: "没有这个文件" } }) },
};

const run = (server: FakeModelServer, apiKey = KEY) =>
  runAgent("说你好", providerFor(server, apiKey), tools, { maxSteps: 5 });

describe("createAnthropicProvider", () => {
  describe("a conversation", () => {
    it("calls echo once, answers its tool_use id with a tool_result, and finishes with the text", async () => {
      const server = await serve([
        {
          calls: [{ name: "echo", input: { text: "你好" } }],
          usage: { inputTokens: 9, outputTokens: 2 },
        },
        { text: "已说：你好", usage: { inputTokens: 15, outputTokens: 3 } },
      ]);
      const result = await run(server);
      expect(result).toMatchObject({
        status: "completed",
        summary: "已说：你好",
        toolCalls: 1,
        usage: { inputTokens: 24, outputTokens: 5 },
      });
      expect(server.rejected).toEqual([]);
      expect(sent(server, 1).messages).toEqual([
        { role: "user", content: "说你好" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "toolu_fake0001", name: "echo", input: { text: "你好" } },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_fake0001", content: "你好" }],
        },
      ]);
    });

    it("posts to <base>/v1/messages with x-api-key, anthropic-version and max_tokens", async () => {
      const server = await serve([{ text: "好" }, { text: "好" }]);
      await run(server);
      await runAgent("任务", providerFor(server, KEY, 123), tools, { maxSteps: 1 });
      const request = server.requests[0];
      expect(request?.path).toBe("/v1/messages");
      expect(request?.headers["x-api-key"]).toBe(KEY);
      expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
      expect(request?.headers.authorization).toBeUndefined();
      expect(sent(server, 0).max_tokens).toBe(4096);
      expect(sent(server, 1).max_tokens).toBe(123);
      expect(request?.body).toMatchObject({
        tools: [
          { name: "echo", description: "返回 text", input_schema: { type: "object" } },
          { name: "fail", input_schema: { type: "object" } },
        ],
      });
    });

    it("runs every tool_use of one reply in order, answers all in the next message, and keeps the text", async () => {
      const server = await serve([
        {
          text: "两件事",
          calls: [
            { name: "echo", input: { text: "一" } },
            { name: "fail", input: {} },
            { name: "echo", input: { text: "三" } },
          ],
        },
        { text: "完成" },
      ]);
      const result = await run(server);
      expect(result).toMatchObject({ status: "completed", toolCalls: 3 });
      expect(ran).toEqual(["一", "三"]);
      expect(server.rejected).toEqual([]);
      expect(sent(server, 1).messages?.slice(1)).toMatchObject([
        {
          role: "assistant",
          content: [
            { type: "text", text: "两件事" },
            { type: "tool_use", id: "toolu_fake0001" },
            { type: "tool_use", id: "toolu_fake0002" },
            { type: "tool_use", id: "toolu_fake0003" },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_fake0001", content: "一" },
            {
              type: "tool_result",
              tool_use_id: "toolu_fake0002",
              is_error: true,
              content: expect.stringContaining("not_found"),
            },
            { type: "tool_result", tool_use_id: "toolu_fake0003", content: "三" },
          ],
        },
      ]);
    });
  });

  describe("failures become provider_error", () => {
    it("reports a wrong key as HTTP 401 authentication_error, never the key", async () => {
      const server = await serve([{ text: "不会到这里" }]);
      const wrong = `sk-ant-api03-${"Wr0ngKey".repeat(4)}`;
      const result = await run(server, wrong);
      expect(result).toMatchObject({ status: "failed", code: "provider_error" });
      expect(result.reason).toMatch(/HTTP 401.*authentication_error.*invalid x-api-key/);
      expect(result.reason).not.toContain(wrong);
    });

    it("reports an overloaded API with its status and error type", async () => {
      const server = await serve([
        {
          status: 529,
          body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        },
      ]);
      const result = await run(server);
      expect(result.reason).toMatch(/HTTP 529.*overloaded_error/);
    });

    it("reports a JSON body that is not a message", async () => {
      const server = await serve([{ status: 200, body: { type: "message", content: "x" } }]);
      const result = await run(server);
      expect(result).toMatchObject({ code: "provider_error" });
      expect(result.reason).toContain("不符合文档中的结构");
    });
  });

  describe("cancellation", () => {
    it("ends the run cancelled when its signal fires during the request", async () => {
      const server = await serve([{ hang: true }]);
      const controller = new AbortController();
      const pending = runAgent(
        "任务",
        providerFor(server),
        tools,
        { maxSteps: 2 },
        controller.signal,
      );
      await expect.poll(() => server.requests.length).toBe(1);
      controller.abort();
      await expect(pending).resolves.toMatchObject({ status: "cancelled" });
    });
  });

  describe("options", () => {
    it("throws for a missing model", () => {
      expect(() => createAnthropicProvider({ model: "" })).toThrow(InvalidProviderOptionsError);
    });
  });
});
