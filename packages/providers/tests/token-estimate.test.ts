import { createModelRequest, type Message, type ReplyReasoning } from "@coding-agent/agent-core";
import { describe, expect, it } from "vitest";
import { createTokenEstimator, estimateTokensConservatively } from "../src/index.ts";

const request = (content: string) =>
  createModelRequest({
    task: { goal: "目标" },
    messages: Object.freeze([{ role: "user", content } as Message]),
    step: 1,
    tools: [],
  });

describe("createTokenEstimator", () => {
  it("counts OpenAI-style requests with the real tokenizer", async () => {
    const estimate = await createTokenEstimator({ style: "openai" });
    const small = estimate(request("hello"));
    // "hello world" repeated: one token per word, far below bytes / 3.
    const large = estimate(request("hello world ".repeat(1_000)));
    expect(large - small).toBeGreaterThan(1_900);
    expect(large - small).toBeLessThan(2_100);
  });

  it("counts the system prompt", async () => {
    const bare = await createTokenEstimator({ style: "openai" });
    const withSystem = await createTokenEstimator({ style: "openai", system: "你是编程助手。" });
    expect(withSystem(request("x"))).toBeGreaterThan(bare(request("x")));
  });

  it.each(["openai", "anthropic"] as const)(
    "counts the request's own system prompt, which wins over the option (%s wire)",
    async (style) => {
      const prompt = "你是编程助手，先运行测试再完成。".repeat(50);
      const bare = await createTokenEstimator({ style });
      const own = createModelRequest({ ...request("x"), system: prompt });
      expect(bare(own)).toBeGreaterThan(bare(request("x")) + 100);
      // The option is what a provider sends when the request has none: the request's wins.
      const withOption = await createTokenEstimator({ style, system: "短" });
      expect(withOption(own)).toBe(bare(own));
    },
  );

  it("estimates other styles as UTF-8 bytes / 3, rounded up", async () => {
    const estimate = await createTokenEstimator({ style: "anthropic" });
    expect(estimate(request("a".repeat(3_000)))).toBeGreaterThanOrEqual(1_000);
    expect(estimateTokensConservatively("abcd")).toBe(2);
    expect(estimateTokensConservatively("汉字")).toBe(2);
    expect(estimateTokensConservatively("")).toBe(0);
  });

  it.each(["openai", "anthropic"] as const)(
    "counts the reasoning the next request hands back (%s wire)",
    async (style) => {
      const thought = "先读文件，再决定怎么改。".repeat(200);
      const handBack: ReplyReasoning["handBack"] =
        style === "openai"
          ? { wire: "openai", textField: "reasoning_content", text: thought }
          : {
              wire: "anthropic",
              blocks: [{ type: "thinking", thinking: thought, signature: "s" }],
            };
      const history = (reasoning: boolean): Message[] => [
        { role: "user", content: "改一下" },
        {
          role: "assistant",
          type: "tool_call",
          callId: "c1",
          tool: "read_file",
          input: { path: "a.ts" },
          ...(reasoning ? { reasoning: { text: thought, handBack, origin: "o" } } : {}),
        },
      ];
      const of = (messages: Message[]) =>
        createModelRequest({ task: { goal: "改一下" }, messages, step: 2, tools: [] });
      const estimate = await createTokenEstimator({ style });
      // The thought is about 2,400 CJK characters: every one of them goes back on the wire.
      expect(estimate(of(history(true))) - estimate(of(history(false)))).toBeGreaterThan(1_500);
    },
  );
});
