import type { Message } from "@coding-agent/agent-core";
import { describe, expect, it } from "vitest";
import { type AnthropicMessage, fromAnthropicMessage, toAnthropicMessages } from "../src/index.ts";

const user: Message = { role: "user", content: "任务" };

const reply = (content: unknown[]): AnthropicMessage =>
  ({
    type: "message",
    role: "assistant",
    content,
    stop_reason: "tool_use",
    usage: { input_tokens: 11, output_tokens: 4 },
  }) as AnthropicMessage;

describe("toAnthropicMessages", () => {
  it("sends a reply as text and tool_use blocks, and its results as one user message of tool_result blocks", () => {
    const history: Message[] = [
      user,
      { role: "assistant", type: "message", content: "先看看" },
      { role: "assistant", type: "tool_call", callId: "t1", tool: "echo", input: { text: "x" } },
      { role: "assistant", type: "tool_call", callId: "t2", tool: "echo", input: { text: "y" } },
      {
        role: "tool",
        callId: "t1",
        tool: "echo",
        ok: true,
        content: "X",
        truncated: false,
        originalLength: 1,
      },
      {
        role: "tool",
        callId: "t2",
        tool: "echo",
        ok: true,
        content: "Y",
        truncated: false,
        originalLength: 1,
      },
      { role: "assistant", type: "finish", summary: "完成" },
    ];
    expect(toAnthropicMessages(history)).toEqual([
      { role: "user", content: "任务" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "先看看" },
          { type: "tool_use", id: "t1", name: "echo", input: { text: "x" } },
          { type: "tool_use", id: "t2", name: "echo", input: { text: "y" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "X" },
          { type: "tool_result", tool_use_id: "t2", content: "Y" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "完成" }] },
    ]);
  });

  it("marks a failed call's result is_error", () => {
    const error = { code: "not_found", message: "坏了" };
    const failed: Message = {
      role: "tool",
      callId: "t1",
      tool: "echo",
      ok: false,
      error,
      content: JSON.stringify({ error, ok: false }),
    };
    const history: Message[] = [
      user,
      { role: "assistant", type: "tool_call", callId: "t1", tool: "echo", input: {} },
      failed,
    ];
    expect(toAnthropicMessages(history).at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", is_error: true }],
    });
  });
});

describe("fromAnthropicMessage", () => {
  it("turns text blocks without tool_use into finish, joined, and maps usage; thinking is kept apart", () => {
    expect(
      fromAnthropicMessage(
        reply([
          { type: "text", text: "第一段" },
          { type: "thinking", thinking: "…", signature: "sig" },
          { type: "text", text: "第二段" },
        ]),
        "anthropic-test",
      ),
    ).toEqual({
      action: { type: "finish", summary: "第一段\n\n第二段" },
      usage: { inputTokens: 11, outputTokens: 4 },
      reasoning: {
        text: "…",
        handBack: {
          wire: "anthropic",
          blocks: [{ type: "thinking", thinking: "…", signature: "sig" }],
        },
        origin: "anthropic-test",
      },
    });
  });

  it("turns tool_use blocks into tool_call actions in order, keeping their ids, after the text", () => {
    const response = fromAnthropicMessage(
      reply([
        { type: "text", text: "两件事" },
        { type: "tool_use", id: "toolu_1", name: "echo", input: { text: "1" } },
        { type: "tool_use", id: "toolu_2", name: "echo", input: "not an object" },
      ]),
    );
    expect(response.actions).toEqual([
      { type: "message", content: "两件事" },
      { type: "tool_call", tool: "echo", callId: "toolu_1", input: { text: "1" } },
      {
        type: "tool_call",
        tool: "echo",
        callId: "toolu_2",
        input: {},
        inputError: expect.stringContaining("参数不是合法 JSON"),
      },
    ]);
  });
});

describe("fromAnthropicMessage usage", () => {
  it("counts cache reads and writes as input, the reads as its cached part", () => {
    const cached = {
      ...reply([{ type: "text", text: "好" }]),
      usage: {
        input_tokens: 10,
        output_tokens: 4,
        cache_read_input_tokens: 70,
        cache_creation_input_tokens: 20,
      },
    } as AnthropicMessage;
    expect(fromAnthropicMessage(cached).usage).toEqual({
      inputTokens: 100,
      outputTokens: 4,
      cachedInputTokens: 70,
    });
    expect(fromAnthropicMessage(reply([{ type: "text", text: "好" }])).usage).toEqual({
      inputTokens: 11,
      outputTokens: 4,
    });
  });
});
