import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import type { ModelReplyInfo } from "../src/extension.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";

const tools: ToolSet = { echo: { description: "回显", execute: (input) => String(input.text) } };
const SECRET = `sk-proj-${"Pr0jKeyAbCdEf".repeat(4)}`;
const handBack = { wire: "test", signature: `sig-${SECRET}` };

describe("a reply's reasoning", () => {
  it("rides on the first message of its reply, goes back in the next request, and reaches afterReply and the trace", async () => {
    const provider = createScriptedProvider([
      {
        actions: [
          { type: "message", content: "先查。" },
          { type: "tool_call", tool: "echo", input: { text: "a" } },
          { type: "tool_call", tool: "echo", input: { text: "b" } },
        ],
        reasoning: { text: `要用 ${SECRET} 吗？不用。`, handBack, origin: "test-model" },
      },
      { action: { type: "finish", summary: "好了" } },
    ]);
    const replies: ModelReplyInfo[] = [];
    const events: TraceEvent[] = [];
    const result = await runAgent("回显", provider, tools, { maxSteps: 4 }, undefined, {
      extensions: [{ name: "spy", afterReply: (reply) => void replies.push(reply) }],
      trace: (event) => void events.push(event),
    });
    expect(result.status).toBe("completed");
    const second = provider.requests[1]?.messages ?? [];
    const assistants = second.filter((message) => message.role === "assistant");
    // Only the reply's first message carries it; the calls after it belong to the same reply.
    expect(assistants.map((message) => "reasoning" in message)).toEqual([true, false, false]);
    const kept = assistants[0]?.reasoning;
    // The text is redacted like any other text the run records…
    expect(kept?.text).not.toContain(SECRET);
    expect(kept?.text).toContain("要用");
    // …and what the vendor checks goes back exactly as it came (the disk is redacted apart).
    expect(kept?.handBack).toEqual(handBack);
    expect(kept?.origin).toBe("test-model");
    expect(Object.isFrozen(kept?.handBack)).toBe(true);
    expect(replies[0]?.reasoning).toEqual(kept);
    const completed = events.filter((event) => event.type === "model_completed");
    expect(completed[0]).toMatchObject({ reasoning: kept?.text });
    expect(completed[1]).not.toHaveProperty("reasoning");
  });

  it("a reply without reasoning, or with an empty one, records none", async () => {
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "echo", input: { text: "a" } }, reasoning: {} },
      { action: { type: "finish", summary: "好了" } },
    ]);
    const result = await runAgent("回显", provider, tools, { maxSteps: 4 });
    expect(result.messages.some((message) => "reasoning" in message)).toBe(false);
  });

  it("a reasoning that is not JSON-shaped is an invalid reply, named", async () => {
    const provider = createScriptedProvider([
      { action: { type: "finish", summary: "好了" }, reasoning: { text: 42 } as never },
    ]);
    const result = await runAgent("回显", provider, tools, { maxSteps: 2 });
    expect(result.code).toBe("invalid_action");
    expect(result.reason).toContain("reasoning");
  });
});
