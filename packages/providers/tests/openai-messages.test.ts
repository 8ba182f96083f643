import type { Message } from "@coding-agent/agent-core";
import { describe, expect, it } from "vitest";
import {
  type ChatCompletion,
  fromChatCompletion,
  readToolArguments,
  toChatMessages,
} from "../src/index.ts";

const user: Message = { role: "user", content: "任务" };
const callMessage = (callId: string, text = "a"): Message => ({
  role: "assistant",
  type: "tool_call",
  callId,
  tool: "echo",
  input: { text },
});
const resultMessage = (callId: string, content = "a"): Message => ({
  role: "tool",
  callId,
  tool: "echo",
  ok: true,
  content,
  truncated: false,
  originalLength: content.length,
});

const completion = (message: Record<string, unknown>, usage = true): ChatCompletion =>
  ({
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    ...(usage ? { usage: { prompt_tokens: 7, completion_tokens: 2 } } : {}),
  }) as ChatCompletion;

describe("toChatMessages", () => {
  it("puts the system prompt first and the task as a user message", () => {
    expect(toChatMessages([user], "你是编码助手")).toEqual([
      { role: "system", content: "你是编码助手" },
      { role: "user", content: "任务" },
    ]);
  });

  it("sends one reply's text and calls as one assistant message, then one tool message per call in order", () => {
    const history: Message[] = [
      user,
      { role: "assistant", type: "message", content: "先看看" },
      callMessage("c1", "x"),
      callMessage("c2", "y"),
      resultMessage("c1", "X"),
      resultMessage("c2", "Y"),
    ];
    expect(toChatMessages(history).slice(1)).toEqual([
      {
        role: "assistant",
        content: "先看看",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "echo", arguments: '{"text":"x"}' } },
          { id: "c2", type: "function", function: { name: "echo", arguments: '{"text":"y"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "X" },
      { role: "tool", tool_call_id: "c2", content: "Y" },
    ]);
  });

  it("keeps calls of separate replies in separate assistant messages", () => {
    const history: Message[] = [
      user,
      callMessage("c1"),
      resultMessage("c1"),
      callMessage("c2"),
      resultMessage("c2"),
    ];
    const roles = toChatMessages(history).map((message) => message.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
  });

  it("sends a failed call's error to the model as the tool message content", () => {
    const error = { code: "unknown_tool", message: "未知工具：echo" };
    const failed: Message = {
      role: "tool",
      callId: "c1",
      tool: "echo",
      ok: false,
      error,
      content: JSON.stringify({ error, ok: false }),
    };
    const sent = toChatMessages([user, callMessage("c1"), failed]).at(-1);
    expect(sent).toMatchObject({ role: "tool", tool_call_id: "c1" });
    expect(sent?.content).toContain("未知工具：echo");
  });
});

describe("fromChatCompletion", () => {
  it("turns text without tool calls into finish with that text, and maps usage", () => {
    expect(fromChatCompletion(completion({ content: "做完了" }), 1)).toEqual({
      action: { type: "finish", summary: "做完了" },
      usage: { inputTokens: 7, outputTokens: 2 },
    });
  });

  it("leaves usage out when the server sends none", () => {
    expect(fromChatCompletion(completion({ content: "好" }, false), 1)).toEqual({
      action: { type: "finish", summary: "好" },
    });
  });

  it("turns tool calls into tool_call actions in order, after the text as a message", () => {
    const response = fromChatCompletion(
      completion({
        content: "看两处",
        tool_calls: [
          { id: "a", type: "function", function: { name: "echo", arguments: '{"text":"1"}' } },
          { id: "b", type: "function", function: { name: "echo", arguments: '{"text":"2"}' } },
        ],
      }),
      3,
    );
    expect(response.actions).toEqual([
      { type: "message", content: "看两处" },
      { type: "tool_call", tool: "echo", callId: "a", input: { text: "1" } },
      { type: "tool_call", tool: "echo", callId: "b", input: { text: "2" } },
    ]);
  });

  it("invents a stable id from the step and position for a call without one", () => {
    const response = fromChatCompletion(
      completion({
        content: null,
        tool_calls: [
          { function: { name: "echo", arguments: { text: "1" } } },
          { id: "", function: { name: "echo", arguments: "" } },
        ],
      }),
      4,
    );
    expect(response.actions).toEqual([
      { type: "tool_call", tool: "echo", callId: "call_4_1", input: { text: "1" } },
      { type: "tool_call", tool: "echo", callId: "call_4_2", input: {} },
    ]);
  });

  it("keeps a call whose arguments are not JSON, marked with why, instead of dropping it", () => {
    const response = fromChatCompletion(
      completion({ tool_calls: [{ id: "a", function: { name: "echo", arguments: "{text: 1" } }] }),
      1,
    );
    expect(response.actions).toEqual([
      {
        type: "tool_call",
        tool: "echo",
        callId: "a",
        input: {},
        inputError: expect.stringContaining("参数不是合法 JSON"),
      },
    ]);
  });
});

describe("readToolArguments", () => {
  it.each([
    ["a JSON text of an object", '{"a":[1,{"b":null}]}', { a: [1, { b: null }] }],
    ["an object (Ollama)", { a: 1 }, { a: 1 }],
    ["an empty text as no arguments", "  ", {}],
  ])("accepts %s", (_name, raw, input) => {
    expect(readToolArguments(raw)).toEqual({ ok: true, input });
  });

  it.each([
    ["text that is not JSON", "{a:1}", "参数不是合法 JSON"],
    ["a JSON array", "[1,2]", "实际是 数组"],
    ["a JSON string", '"hi"', "实际是 string"],
    ["null", null, "实际是 null"],
    ["a number", 3, "实际是 number"],
  ])("reports %s with the reason", (_name, raw, reason) => {
    const read = readToolArguments(raw);
    expect(read.ok).toBe(false);
    expect(read.ok ? "" : read.message).toContain(reason);
  });

  it("quotes at most 200 characters of unreadable arguments", () => {
    const read = readToolArguments(`{${"x".repeat(10_000)}`);
    expect(read.ok ? "" : read.message.length).toBeLessThan(400);
  });
});

describe("fromChatCompletion usage", () => {
  it("reports the cached part of the prompt, when the API gives one", () => {
    const cached = {
      choices: [{ index: 0, message: { role: "assistant", content: "好" }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 60 },
      },
    } as ChatCompletion;
    expect(fromChatCompletion(cached, 1).usage).toEqual({
      inputTokens: 100,
      outputTokens: 5,
      cachedInputTokens: 60,
    });
    expect(fromChatCompletion(completion({ content: "好" }), 1).usage).toEqual({
      inputTokens: 7,
      outputTokens: 2,
    });
  });
});
