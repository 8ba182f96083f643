import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, type FakeTurn, startFakeModelServer } from "../src/testing/index.ts";

const KEY = "sk-test-fake-server-key";
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: readonly FakeTurn[] = [{ text: "好" }]) {
  const server = await startFakeModelServer({ script, apiKey: KEY });
  servers.push(server);
  return server;
}

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const openai = async (body: unknown, headers: Record<string, string> = {}) => {
  const server = await serve();
  const answer = await post(
    `${server.openaiBaseUrl}/chat/completions`,
    { authorization: `Bearer ${KEY}`, ...headers },
    body,
  );
  return { ...answer, server };
};

const anthropic = async (body: unknown, headers: Record<string, string> = {}) => {
  const server = await serve();
  const answer = await post(
    `${server.anthropicBaseUrl}/v1/messages`,
    { "x-api-key": KEY, "anthropic-version": "2023-06-01", ...headers },
    body,
  );
  return { ...answer, server };
};

const user = { role: "user", content: "任务" };
const call = (id: string) => ({
  id,
  type: "function",
  function: { name: "echo", arguments: '{"text":"a"}' },
});

describe("startFakeModelServer as OpenAI Chat Completions", () => {
  it("answers a valid request with a recorded-style completion: id, finish_reason, usage", async () => {
    const { status, body } = await openai({ model: "m", messages: [user] });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "m",
      choices: [{ message: { role: "assistant", content: "好" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    });
  });

  it("answers several tool calls in one reply with finish_reason tool_calls", async () => {
    const server = await serve([{ calls: [{ name: "a" }, { name: "b", input: { x: 1 } }] }]);
    const { body } = await post(
      `${server.openaiBaseUrl}/chat/completions`,
      { authorization: `Bearer ${KEY}` },
      { model: "m", messages: [user] },
    );
    expect(body).toMatchObject({
      choices: [
        {
          finish_reason: "tool_calls",
          message: {
            content: null,
            tool_calls: [
              { id: "call_fake0001", type: "function", function: { name: "a", arguments: "{}" } },
              { id: "call_fake0002", function: { name: "b", arguments: '{"x":1}' } },
            ],
          },
        },
      ],
    });
  });

  it.each([
    [
      "a tool message without a preceding tool_calls",
      { model: "m", messages: [user, { role: "tool", tool_call_id: "c1", content: "x" }] },
      "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    ],
    [
      "a tool message whose id is not among the tool_calls",
      {
        model: "m",
        messages: [
          user,
          { role: "assistant", content: null, tool_calls: [call("c1")] },
          { role: "tool", tool_call_id: "c2", content: "x" },
        ],
      },
      "'tool_call_id' of 'c2' not found in 'tool_calls' of previous message",
    ],
    [
      "tool_calls not answered by a tool message for each id",
      {
        model: "m",
        messages: [
          user,
          { role: "assistant", content: null, tool_calls: [call("c1"), call("c2")] },
          { role: "tool", tool_call_id: "c1", content: "x" },
          user,
        ],
      },
      "The following tool_call_ids did not have response messages: c2",
    ],
    [
      "arguments sent as an object",
      {
        model: "m",
        messages: [
          user,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "e", arguments: {} } }],
          },
          { role: "tool", tool_call_id: "c1", content: "x" },
        ],
      },
      "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
    ],
    ["a missing model", { messages: [user] }, "you must provide a model parameter"],
    [
      "an unknown request field",
      { model: "m", messages: [user], max_steps: 3 },
      "Unrecognized request argument supplied: max_steps",
    ],
    [
      "a tool whose parameters are not an object schema",
      {
        model: "m",
        messages: [user],
        tools: [{ type: "function", function: { name: "e", parameters: { type: "string" } } }],
      },
      "Invalid schema for function 'e'",
    ],
  ])("rejects %s with HTTP 400 and the API's error shape", async (_name, request, message) => {
    const { status, body, server } = await openai(request);
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: { message: expect.stringContaining(message), type: "invalid_request_error" },
    });
    expect(server.remaining).toBe(1);
    expect(server.rejected).toHaveLength(1);
  });

  it("rejects a missing key and a wrong key with HTTP 401", async () => {
    const missing = await openai({ model: "m", messages: [user] }, { authorization: "" });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({
      error: { message: expect.stringContaining("didn't provide") },
    });
    const wrong = await openai({ model: "m", messages: [user] }, { authorization: "Bearer sk-no" });
    expect(wrong.body).toMatchObject({ error: { code: "invalid_api_key" } });
  });

  it("answers 500 naming the script once it is used up, never a guess", async () => {
    const server = await serve([]);
    const answer = await post(
      `${server.openaiBaseUrl}/chat/completions`,
      { authorization: `Bearer ${KEY}` },
      { model: "m", messages: [user] },
    );
    expect(answer).toMatchObject({
      status: 500,
      body: { error: { message: expect.stringContaining("script exhausted") } },
    });
  });
});

describe("startFakeModelServer as Anthropic Messages", () => {
  const base = { model: "c", max_tokens: 100 };
  const toolUse = (id: string) => ({ type: "tool_use", id, name: "echo", input: { text: "a" } });
  const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "a" });

  it("answers a valid request with a recorded-style message: stop_reason, usage", async () => {
    const { status, body } = await anthropic({ ...base, messages: [user] });
    expect(status).toBe(200);
    expect(body).toEqual({
      id: "msg_fake1",
      type: "message",
      role: "assistant",
      model: "c",
      content: [{ type: "text", text: "好" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 5 },
    });
  });

  it.each([
    ["a missing max_tokens", { model: "c", messages: [user] }, "max_tokens: Field required"],
    [
      "an unknown field",
      { ...base, messages: [user], tool_choices: [] },
      "tool_choices: Extra inputs are not permitted",
    ],
    [
      "a first message that is not from the user",
      { ...base, messages: [{ role: "assistant", content: "x" }] },
      'first message must use the "user" role',
    ],
    [
      "a tool_result whose id has no tool_use just before",
      {
        ...base,
        messages: [
          user,
          { role: "assistant", content: [toolUse("t1")] },
          { role: "user", content: [result("t2"), result("t1")] },
        ],
      },
      "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t2",
    ],
    [
      "a tool_use not answered in the next message",
      {
        ...base,
        messages: [
          user,
          { role: "assistant", content: [toolUse("t1"), toolUse("t2")] },
          { role: "user", content: [result("t1")] },
        ],
      },
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t2",
    ],
    [
      "an empty text block",
      { ...base, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] },
      "all messages must have non-empty content",
    ],
  ])("rejects %s with HTTP 400 invalid_request_error", async (_name, request, message) => {
    const { status, body, server } = await anthropic(request);
    expect(status).toBe(400);
    expect(body).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining(message) },
    });
    expect(server.remaining).toBe(1);
  });

  it("rejects a missing anthropic-version header", async () => {
    const { status, body } = await anthropic(
      { ...base, messages: [user] },
      { "anthropic-version": "" },
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { message: "anthropic-version: header is required" } });
  });

  it("rejects an OpenAI-style Bearer key and a wrong x-api-key with HTTP 401", async () => {
    const server = await serve();
    const bearer = await post(
      `${server.anthropicBaseUrl}/v1/messages`,
      { authorization: `Bearer ${KEY}`, "anthropic-version": "2023-06-01" },
      { ...base, messages: [user] },
    );
    expect(bearer).toMatchObject({
      status: 401,
      body: { error: { type: "authentication_error", message: "x-api-key header is required" } },
    });
    const wrong = await anthropic({ ...base, messages: [user] }, { "x-api-key": "sk-ant-no" });
    expect(wrong).toMatchObject({ status: 401, body: { error: { message: "invalid x-api-key" } } });
  });
});
