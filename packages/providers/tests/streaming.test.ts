/**
 * Both adapters stream (lesson 38): the same scripted conversations, streamed and not,
 * give the same replies, however the bytes are cut; a stream that ends or drops before
 * its end event, a malformed event, and `Retry-After` become the errors the run's retry
 * acts on. Against the loopback fake server, which breaks streams on purpose.
 */
import { readFileSync } from "node:fs";
import { classifyFailure, type ModelRequest, type Provider } from "@coding-agent/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { parseRetryAfter } from "../src/http.ts";
import {
  createAnthropicProvider,
  createOpenAICompatibleProvider,
  ProviderError,
  type ProviderOptions,
} from "../src/index.ts";
import { MAX_EVENT_CHARS } from "../src/sse.ts";
import {
  type FakeApi,
  type FakeModelServer,
  type FakeModelServerOptions,
  type FakeTurn,
  startFakeModelServer,
} from "../src/testing/index.ts";

const KEY = `sk-proj-${"Stream00".repeat(4)}`;
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: readonly FakeTurn[], more: Partial<FakeModelServerOptions> = {}) {
  const server = await startFakeModelServer({ script, apiKey: KEY, ...more });
  servers.push(server);
  return server;
}

function adapter(api: FakeApi, server: FakeModelServer, more: Partial<ProviderOptions> = {}) {
  return api === "openai"
    ? createOpenAICompatibleProvider({
        model: "gpt-test",
        baseUrl: server.openaiBaseUrl,
        apiKey: KEY,
        ...more,
      })
    : createAnthropicProvider({
        model: "claude-test",
        baseUrl: server.anthropicBaseUrl,
        apiKey: KEY,
        ...more,
      });
}

const request: ModelRequest = {
  task: { goal: "说你好" },
  messages: [{ role: "user", content: "说你好" }],
  step: 1,
  tools: [
    {
      name: "echo",
      description: "返回 text",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
    },
  ],
};

const ask = (provider: Provider) => provider.complete(request, new AbortController().signal);

/** What `complete` rejected with (the test fails if it resolved). */
async function failure(provider: Provider): Promise<ProviderError> {
  const error = await ask(provider).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/** Replies worth streaming: Chinese text, several calls, arguments in pieces, odd arguments. */
const CONVERSATIONS: Record<string, FakeTurn> = {
  "text only, in Chinese and emoji": {
    text: "你好，世界！这是一段较长的中文回复 🌏，用来跨越很多个分块。",
    usage: { inputTokens: 31, outputTokens: 17 },
  },
  "text and two tool calls": {
    text: "先看看：",
    calls: [
      { name: "echo", input: { text: "第一个 “引号” 和 \\ 反斜杠" } },
      { name: "echo", input: { text: "第二个", nested: { list: [1, 2, 3] } } },
    ],
    usage: { inputTokens: 40, outputTokens: 22 },
  },
  "a call with no arguments": { calls: [{ name: "echo", input: {} }] },
};

/** An OpenAI-only oddity: arguments that are not JSON, a call without id. */
const OPENAI_ONLY: Record<string, FakeTurn> = {
  "arguments that are not JSON": { calls: [{ name: "echo", arguments: '{"text": "半截' }] },
  "a call without an id": { calls: [{ name: "echo", id: null, input: { text: "无 id" } }] },
};

describe.each(["openai", "anthropic"] as const)("%s streaming", (api) => {
  const cases = Object.entries(
    api === "openai" ? { ...CONVERSATIONS, ...OPENAI_ONLY } : CONVERSATIONS,
  );

  it.each(cases)("%s: streamed in any cut, the reply equals the plain one", async (_, turn) => {
    const plainServer = await serve([turn]);
    const plain = await ask(adapter(api, plainServer, { stream: false }));
    expect(plainServer.requests[0]?.body).not.toHaveProperty("stream");
    for (const chunkBytes of [undefined, 1, 3, 7, 64]) {
      const knobs = chunkBytes === undefined ? {} : { stream: { chunkBytes } };
      const server = await serve([{ ...turn, ...knobs } as FakeTurn]);
      const texts: string[] = [];
      const streamed = await ask(adapter(api, server, { onText: (text) => texts.push(text) }));
      expect(streamed).toEqual(plain);
      expect(server.rejected).toEqual([]);
      expect(server.requests[0]?.body).toMatchObject(
        api === "openai"
          ? { stream: true, stream_options: { include_usage: true } }
          : { stream: true },
      );
      // The text went to the display piece by piece, and the pieces make the text.
      const text = "text" in turn ? (turn.text ?? "") : "";
      expect(texts.join("")).toBe(text);
      if ([...text].length > 4) expect(texts.length).toBeGreaterThan(1);
    }
    // The usage came from the stream, not made up.
    if ("usage" in turn && turn.usage !== undefined) {
      expect(plain.usage).toEqual(turn.usage);
    }
  });

  it("a chunk that ends inside a UTF-8 character or a JSON event is read whole", async () => {
    // 1 byte per write: every Chinese character (3 bytes) and every event is split.
    const server = await serve([{ text: "汉字测试", stream: { chunkBytes: 1 } }]);
    const reply = await ask(adapter(api, server));
    expect(reply.action).toEqual({ type: "finish", summary: "汉字测试" });
  });

  it("reads a server without SSE that answers JSON to a stream request", async () => {
    const server = await serve([{ calls: [{ name: "echo", input: { text: "x" } }] }], {
      sse: false,
    });
    const reply = await ask(adapter(api, server));
    expect(reply.actions).toMatchObject([
      { type: "tool_call", tool: "echo", input: { text: "x" } },
    ]);
  });

  it.each(["end", "destroy"] as const)(
    "a stream cut (%s) before its end event is a retryable error, nothing of it used",
    async (how) => {
      const server = await serve([
        { text: "这段话会被截断在中间", stream: { cutAfter: { events: 3, how } } },
      ]);
      const error = await failure(adapter(api, server));
      expect(error.status).toBeUndefined();
      expect(error.message).toContain(api === "openai" ? "[DONE]" : "message_stop");
      expect(classifyFailure({ source: "provider", status: error.status })).toBe("retryable");
    },
  );

  it("a cut right before the end event is still a cut", async () => {
    // Every event but the last one ([DONE] / message_stop) is sent.
    const server = await serve([{ text: "几乎完整", stream: { cutAfter: { events: 999 } } }]);
    const error = await failure(adapter(api, server));
    expect(error.status).toBeUndefined();
  });

  it("a malformed event is a provider error with a redacted, bounded excerpt, not retried", async () => {
    const planted = `{"oops": "${KEY}" ${"x".repeat(5_000)}`;
    const server = await serve([
      { text: "好的开始", stream: { malformed: { afterEvents: 2, data: planted } } },
    ]);
    const error = await failure(adapter(api, server));
    expect(error.status).toBe(200);
    expect(classifyFailure({ source: "provider", status: error.status })).not.toBe("retryable");
    expect(error.message).toContain("无法解析");
    expect(error.message).toContain("oops");
    expect(error.message).not.toContain(KEY);
    expect(error.excerpt).not.toContain(KEY);
    expect(error.excerpt.length).toBeLessThan(700);
  });

  it("an event that never ends is cut off at MAX_EVENT_CHARS, not buffered forever", async () => {
    const flood = `data: ${"x".repeat(MAX_EVENT_CHARS + 1_000)}`;
    const server = await serve([{ rawSse: flood, chunkBytes: 256 * 1024 }]);
    const error = await failure(adapter(api, server));
    expect(error.status).toBe(200);
    expect(error.message).toContain(String(MAX_EVENT_CHARS));
  });

  it.each([
    [429, { seconds: 1 }, 1_000],
    [503, { seconds: 2 }, 2_000],
    [429, { seconds: 1, as: "date" as const }, 1_000],
  ])("HTTP %i with Retry-After %j: retryAfterMs %i", async (status, retryAfter, ms) => {
    const server = await serve([{ status, body: { error: { message: "slow down" } }, retryAfter }]);
    const error = await failure(adapter(api, server));
    expect(error).toMatchObject({ status, retryAfterMs: ms });
    expect(error.message).toContain(`Retry-After：${ms} ms`);
  });

  it("Retry-After on other statuses is not read", async () => {
    const server = await serve([
      { status: 500, body: { error: { message: "boom" } }, retryAfter: { seconds: 1 } },
    ]);
    expect((await failure(adapter(api, server))).retryAfterMs).toBeUndefined();
  });

  it("a 503, then the same request succeeds", async () => {
    const server = await serve([
      { status: 503, body: { error: { message: "busy" } } },
      { text: "好了" },
    ]);
    const provider = adapter(api, server);
    expect((await failure(provider)).status).toBe(503);
    expect((await ask(provider)).action).toEqual({ type: "finish", summary: "好了" });
  });
});

describe("anthropic stream events", () => {
  it("an error event mid-stream is an error with the status its type stands for", async () => {
    const overloaded = JSON.stringify({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    const server = await serve([
      { text: "开始了", stream: { malformed: { afterEvents: 3, data: overloaded } } },
    ]);
    const error = await failure(adapter("anthropic", server));
    expect(error.status).toBe(529);
    expect(classifyFailure({ source: "provider", status: error.status })).toBe("retryable");
  });

  it("an event type it does not know is passed over", async () => {
    const unknown = JSON.stringify({ type: "some_future_event", detail: 1 });
    const server = await serve([
      { text: "照常", stream: { malformed: { afterEvents: 2, data: unknown } } },
    ]);
    expect((await ask(adapter("anthropic", server))).action).toEqual({
      type: "finish",
      summary: "照常",
    });
  });
});

describe("parseRetryAfter", () => {
  const sent = "Tue, 01 Dec 2026 10:00:00 GMT";
  it.each([
    ["1", null, 1_000],
    ["0", null, 0],
    [" 30 ", null, 30_000],
    ["Tue, 01 Dec 2026 10:00:02 GMT", sent, 2_000],
    ["Tue, 01 Dec 2026 09:59:00 GMT", sent, 0],
    ["1.5", null, undefined],
    ["-1", null, undefined],
    ["soon", null, undefined],
    ["", null, undefined],
  ])("%j (Date %j) → %j", (value, date, expected) => {
    expect(parseRetryAfter(value, date)).toBe(expected);
  });

  it("counts a date from now when the response has no Date header", () => {
    const now = Date.parse("Tue, 01 Dec 2026 10:00:00 GMT");
    expect(parseRetryAfter("Tue, 01 Dec 2026 10:00:05 GMT", null, () => now)).toBe(5_000);
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe("streams shaped as the APIs' documentation shows them", () => {
  const fixture = (name: string) =>
    readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

  it.each([undefined, 2])(
    "OpenAI: text, two tool calls in pieces by index, usage in the last chunk (chunks of %s bytes)",
    async (chunkBytes) => {
      const rawSse = fixture("openai-chat-stream-tool-calls.sse");
      const server = await serve([{ rawSse, ...(chunkBytes === undefined ? {} : { chunkBytes }) }]);
      const texts: string[] = [];
      const reply = await ask(adapter("openai", server, { onText: (text) => texts.push(text) }));
      expect(texts).toEqual(["我来", "查一下", "两个城市。"]);
      expect(reply).toEqual({
        actions: [
          { type: "message", content: "我来查一下两个城市。" },
          {
            type: "tool_call",
            tool: "get_weather",
            callId: "call_Wx81kQ2mZr",
            input: { city: "北京", unit: "c" },
          },
          {
            type: "tool_call",
            tool: "get_weather",
            callId: "call_Pq53nHs0Lb",
            input: { city: "Paris, France" },
          },
        ],
        usage: { inputTokens: 96, outputTokens: 51, cachedInputTokens: 64 },
        model: "gpt-test",
      });
    },
  );

  it.each([undefined, 2])(
    "Anthropic: a thinking block with its signature kept, text, input_json_delta pieces, usage from start and delta (chunks of %s bytes)",
    async (chunkBytes) => {
      const rawSse = fixture("anthropic-messages-stream-tool-use.sse");
      const server = await serve([{ rawSse, ...(chunkBytes === undefined ? {} : { chunkBytes }) }]);
      const texts: string[] = [];
      const thoughts: string[] = [];
      const reply = await ask(
        adapter("anthropic", server, {
          onText: (text) => texts.push(text),
          onReasoning: (text) => thoughts.push(text),
        }),
      );
      expect(texts).toEqual(["好的，", "我查一下北京", "的天气。"]);
      expect(thoughts).toEqual(["用户要天气，调用工具。"]);
      const thinking = {
        type: "thinking",
        thinking: "用户要天气，调用工具。",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
      };
      expect(reply).toEqual({
        actions: [
          { type: "message", content: "好的，我查一下北京的天气。" },
          {
            type: "tool_call",
            tool: "get_weather",
            callId: "toolu_01Rec0rdedT00lUse9",
            input: { city: "北京", unit: "celsius" },
          },
        ],
        // input 512 + cache reads 128 (counted apart by this API), output from message_delta.
        usage: { inputTokens: 640, outputTokens: 87, cachedInputTokens: 128 },
        model: "claude-test",
        reasoning: {
          text: thinking.thinking,
          handBack: { wire: "anthropic", blocks: [thinking] },
          origin: expect.stringMatching(/^anthropic /),
        },
      });
    },
  );
});
