import { type Message, runAgent, type ToolSet } from "@coding-agent/agent-core";
import {
  assistantsOf,
  DEEPSEEK_RULES,
  type FakeTurn,
  type Imitation,
  startFakeModelServer,
  startImitation,
} from "@coding-agent/providers/testing";
import { type ChatCompletion, createChatProvider, fromChatCompletion, toChatMessages } from "@lab";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

const KEY = "sk-lab-10-loopback-key";
const user: Message = { role: "user", content: "说你好" };
const call = (callId: string, text: string): Message => ({
  role: "assistant",
  type: "tool_call",
  callId,
  tool: "echo",
  input: { text },
});
const result = (callId: string, content: string): Message => ({
  role: "tool",
  callId,
  tool: "echo",
  ok: true,
  content,
  truncated: false,
  originalLength: content.length,
});

describe("toChatMessages", () => {
  it("sends the task as a user message and a reply's text as an assistant message", () => {
    const history: Message[] = [user, { role: "assistant", type: "finish", summary: "好了" }];
    expect(toChatMessages(history)).toEqual([
      { role: "user", content: "说你好" },
      { role: "assistant", content: "好了" },
    ]);
  });

  it("sends one reply's tool calls as one assistant message with tool_calls, arguments as JSON text", () => {
    const history: Message[] = [
      user,
      { role: "assistant", type: "message", content: "两件事" },
      call("c1", "一"),
      call("c2", "二"),
    ];
    expect(toChatMessages(history).slice(1), "文字和两个调用应当在同一条 assistant 消息里").toEqual(
      [
        {
          role: "assistant",
          content: "两件事",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "echo", arguments: '{"text":"一"}' } },
            { id: "c2", type: "function", function: { name: "echo", arguments: '{"text":"二"}' } },
          ],
        },
      ],
    );
  });

  it("answers each call with a tool message carrying its tool_call_id, in the order of the calls", () => {
    const history: Message[] = [
      user,
      call("c1", "一"),
      call("c2", "二"),
      result("c1", "一"),
      result("c2", "二"),
    ];
    expect(
      toChatMessages(history).slice(2),
      "每个结果都是 role tool，并带上它回答的调用 id",
    ).toEqual([
      { role: "tool", tool_call_id: "c1", content: "一" },
      { role: "tool", tool_call_id: "c2", content: "二" },
    ]);
  });

  it("keeps calls of separate replies in separate assistant messages", () => {
    const history: Message[] = [
      user,
      call("c1", "一"),
      result("c1", "一"),
      call("c2", "二"),
      result("c2", "二"),
    ];
    const sent = toChatMessages(history);
    expect(
      sent.map((message) => message.role),
      "两次回复之间隔着 tool 结果，不能合并成一条 assistant 消息",
    ).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
    expect(sent[3]).toMatchObject({ tool_calls: [{ id: "c2" }] });
  });

  it("hands a reply's reasoning_content back on that reply's assistant message", () => {
    const history: Message[] = [
      user,
      {
        role: "assistant",
        type: "tool_call",
        callId: "c1",
        tool: "echo",
        input: { text: "一" },
        reasoning: { text: "先回显一。" },
      },
      result("c1", "一"),
      { role: "assistant", type: "finish", summary: "好了", reasoning: { text: "可以结束了。" } },
    ];
    const sent = toChatMessages(history).map((message) =>
      message.role === "assistant" ? message.reasoning_content : "—",
    );
    expect(sent, "每次回复的思考要放回它自己那条 assistant 消息的 reasoning_content").toEqual([
      "—",
      "先回显一。",
      "—",
      "可以结束了。",
    ]);
  });
});

describe("fromChatCompletion", () => {
  const completion = (message: object): ChatCompletion => ({
    choices: [{ message, finish_reason: "stop" }],
    usage: { prompt_tokens: 7, completion_tokens: 2 },
  });

  it("turns text without tool calls into finish with that text, and maps usage", () => {
    expect(fromChatCompletion(completion({ content: "做完了" }), 1)).toEqual({
      action: { type: "finish", summary: "做完了" },
      usage: { inputTokens: 7, outputTokens: 2 },
    });
  });

  it("turns every tool call into a tool_call action, in order, with its id", () => {
    const response = fromChatCompletion(
      completion({
        content: null,
        tool_calls: [
          { id: "a", function: { name: "echo", arguments: '{"text":"1"}' } },
          { id: "b", function: { name: "echo", arguments: '{"text":"2"}' } },
        ],
      }),
      3,
    );
    expect(response.actions, "一次回复里的每个调用都要变成动作，一个也不能丢").toEqual([
      { type: "tool_call", tool: "echo", callId: "a", input: { text: "1" } },
      { type: "tool_call", tool: "echo", callId: "b", input: { text: "2" } },
    ]);
  });

  it("keeps the reply's reasoning_content as the reply's reasoning", () => {
    const response = fromChatCompletion(
      completion({ content: "好了", reasoning_content: "想一想再答。" }),
      1,
    );
    expect(response.reasoning).toEqual({ text: "想一想再答。" });
  });

  it("invents an id from the step and position when the server sends none", () => {
    const response = fromChatCompletion(
      completion({ tool_calls: [{ function: { name: "echo", arguments: "{}" } }] }),
      4,
    );
    expect(response.actions).toEqual([
      { type: "tool_call", tool: "echo", callId: "call_4_1", input: {} },
    ]);
  });
});

// Real HTTP round trips: on a busy machine the first one alone can take seconds, so these
// tests get a longer hang guard than the lab's 2 s, and one warm-up request happens first.
describe("createChatProvider against a loopback server", { timeout: 15_000 }, () => {
  beforeAll(async () => {
    const server = await startFakeModelServer({ script: [] });
    await fetch(server.openaiBaseUrl).catch(() => undefined);
    await server.close();
  }, 30_000);

  const servers: { close(): Promise<void> }[] = [];
  const ran: string[] = [];
  afterEach(async () => {
    ran.length = 0;
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const tools: ToolSet = {
    echo: {
      description: "返回 text",
      execute: (input) => {
        ran.push(String(input.text));
        return input.text;
      },
    },
  };

  async function runAgainst(script: FakeTurn[]) {
    const server = await startFakeModelServer({ script, apiKey: KEY });
    servers.push(server);
    const provider = createChatProvider({ baseUrl: server.openaiBaseUrl, model: "m", apiKey: KEY });
    const run = await runAgent("说你好", provider, tools, { maxSteps: 5 });
    const sent = server.requests.map(
      (request) => (request.body as { messages: unknown[] }).messages,
    );
    return { run, sent, rejected: server.rejected.map((request) => request.rejected?.body) };
  }

  it("runs a conversation: echo once, its result goes back under the call's id, the model's text finishes", async () => {
    const { run, sent, rejected } = await runAgainst([
      { calls: [{ name: "echo", input: { text: "你好" } }] },
      { text: "我说了：你好" },
    ]);
    expect(rejected, "服务器拒绝了请求").toEqual([]);
    expect(run).toMatchObject({ status: "completed", summary: "我说了：你好", toolCalls: 1 });
    expect(sent[1]?.slice(1), "第二次请求应当带着工具调用和它的 tool 结果").toEqual([
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
    ]);
  });

  it("answers every call of one reply before the next request, and the server accepts it", async () => {
    const { run, sent, rejected } = await runAgainst([
      {
        calls: [
          { name: "echo", input: { text: "一" } },
          { name: "echo", input: { text: "二" } },
        ],
      },
      { text: "完成" },
    ]);
    expect(rejected, "服务器拒绝了请求").toEqual([]);
    expect(run).toMatchObject({ status: "completed", toolCalls: 2 });
    expect(ran).toEqual(["一", "二"]);
    expect(sent[1]?.slice(2), "两个 tool 结果应当按调用顺序紧跟在 assistant 消息之后").toEqual([
      { role: "tool", tool_call_id: "call_fake0001", content: "一" },
      { role: "tool", tool_call_id: "call_fake0002", content: "二" },
    ]);
  });

  it("ends the run failed / provider_error with the HTTP status when the server rejects the call", async () => {
    const { run } = await runAgainst([{ status: 500, body: { error: { message: "boom" } } }]);
    expect(run).toMatchObject({ status: "failed", code: "provider_error" });
    expect(run.reason).toContain("HTTP 500");
  });
});

// DeepSeek's thinking mode, imitated with its documented rule: a reply that called tools must
// get its reasoning_content back in every later request, or the API answers 400.
describe("createChatProvider against a thinking model (DeepSeek's rule)", {
  timeout: 15_000,
}, () => {
  const imitations: Imitation[] = [];
  afterEach(async () => {
    await Promise.all(imitations.splice(0).map((imitation) => imitation.close()));
  });
  const call = (id: string, text: string) => ({
    id,
    type: "function",
    function: { name: "echo", arguments: JSON.stringify({ text }) },
  });

  it("completes a tool-using run: each reply's reasoning_content goes back, and the server accepts every request", async () => {
    const imitation = await startImitation({
      wire: "openai",
      rules: DEEPSEEK_RULES,
      replies: [
        { content: null, reasoning_content: "先说一。", tool_calls: [call("c1", "一")] },
        { content: null, reasoning_content: "再说二。", tool_calls: [call("c2", "二")] },
        { content: "说完了", reasoning_content: "可以结束。" },
      ],
    });
    imitations.push(imitation);
    const provider = createChatProvider({ baseUrl: imitation.baseUrl, model: "m", apiKey: KEY });
    const tools: ToolSet = { echo: { description: "返回 text", execute: (input) => input.text } };
    const run = await runAgent("说一和二", provider, tools, { maxSteps: 5 });
    expect(imitation.rejections, "思考模式的服务器拒绝了请求").toEqual([]);
    expect(run).toMatchObject({ status: "completed", summary: "说完了", toolCalls: 2 });
    expect(assistantsOf(imitation, 2).map((message) => message.reasoning_content)).toEqual([
      "先说一。",
      "再说二。",
    ]);
  });
});
