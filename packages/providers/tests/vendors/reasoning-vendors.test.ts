import { isDeepStrictEqual } from "node:util";
import {
  type Message,
  type ModelRequest,
  type Provider,
  runAgent,
  type ToolSet,
} from "@coding-agent/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import {
  createAnthropicProvider,
  createOpenAICompatibleProvider,
  type ProviderOptions,
  type VendorName,
} from "../../src/index.ts";
import {
  ANTHROPIC_THINKING_RULES,
  assistantsOf,
  DEEPSEEK_RULES,
  type Imitation,
  type Rule,
  reasoningContentKept,
  startImitation,
} from "../../src/testing/index.ts";

/**
 * Today's reasoning models, each against an imitation that applies its vendor's documented
 * rules strictly: a tool-using run of three replies (one call, two calls at once, a finish)
 * must complete, streamed and plain, and the same run with the reasoning dropped from the
 * history must get the vendor's 400 (so each rule is proven able to fail).
 */

const imitations: Imitation[] = [];
afterEach(async () => {
  await Promise.all(imitations.splice(0).map((imitation) => imitation.close()));
});

const tools: ToolSet = {
  echo: { description: "返回 text", execute: (input) => String(input.text) },
};

const call = (id: string, text: string, extra?: unknown) => ({
  id,
  type: "function",
  function: { name: "echo", arguments: JSON.stringify({ text }) },
  ...(extra === undefined ? {} : { extra_content: extra }),
});

/** A provider that loses every reply's reasoning before the request: the bug being fixed. */
function dropping(provider: Provider): Provider {
  return {
    complete(request: ModelRequest, signal: AbortSignal) {
      const messages = request.messages.map((message) => {
        if (!("reasoning" in message)) return message;
        const { reasoning: _dropped, ...rest } = message;
        return rest as Message;
      });
      return provider.complete({ ...request, messages }, signal);
    },
  };
}

async function openaiVendor(
  vendor: VendorName,
  replies: Record<string, unknown>[],
  rules: readonly Rule[],
  more: Partial<ProviderOptions> = {},
) {
  const imitation = await startImitation({ wire: "openai", replies, rules });
  imitations.push(imitation);
  const provider = createOpenAICompatibleProvider({
    model: `${vendor}-thinking`,
    baseUrl: imitation.baseUrl,
    apiKey: "sk-test",
    vendor,
    ...more,
  });
  return { imitation, provider };
}

const run = (provider: Provider) =>
  runAgent("把 a 和 b 各回显一次", provider, tools, { maxSteps: 6 });

/** Three replies of a thinking model on the reasoning_content wire. */
const thinkingReplies = (field: "reasoning_content" | "reasoning" = "reasoning_content") => [
  { content: null, [field]: "先回显 a。", tool_calls: [call("c1", "a")] },
  {
    content: "再回显 b，两次。",
    [field]: "b 要两次。",
    tool_calls: [call("c2", "b"), call("c3", "b")],
  },
  { content: "都回显了。", [field]: "完成。" },
];

describe.each([true, false])("reasoning models (stream: %s)", (stream) => {
  describe("DeepSeek V4 (api-docs.deepseek.com/guides/thinking_mode)", () => {
    const rules = DEEPSEEK_RULES;

    it("completes a tool-using run, handing each reply's reasoning_content back", async () => {
      const { imitation, provider } = await openaiVendor("deepseek", thinkingReplies(), rules, {
        stream,
      });
      const result = await run(provider);
      expect(imitation.rejections).toEqual([]);
      expect(result.status).toBe("completed");
      expect(assistantsOf(imitation, 2).map((m) => m.reasoning_content)).toEqual([
        "先回显 a。",
        "b 要两次。",
      ]);
    });

    it("without the hand-back, the run fails with DeepSeek's own 400", async () => {
      const { provider } = await openaiVendor("deepseek", thinkingReplies(), rules, { stream });
      const result = await run(dropping(provider));
      expect(result.status).toBe("failed");
      expect(result.reason).toContain(
        "reasoning_content` in the thinking mode must be passed back",
      );
    });

    it("maps --reasoning-effort to thinking and reasoning_effort, and none to thinking disabled", async () => {
      const high = await openaiVendor("deepseek", thinkingReplies(), rules, {
        stream,
        reasoningEffort: "max",
      });
      await run(high.provider);
      expect(high.imitation.bodies[0]).toMatchObject({
        thinking: { type: "enabled" },
        reasoning_effort: "max",
      });
      const none = await openaiVendor("deepseek", [{ content: "好。" }], rules, {
        stream,
        reasoningEffort: "none",
      });
      await run(none.provider);
      expect(none.imitation.bodies[0]?.thinking).toEqual({ type: "disabled" });
      expect(none.imitation.bodies[0]).not.toHaveProperty("reasoning_effort");
    });
  });

  describe("Kimi K2 thinking (platform.moonshot.cn, thinking models and tool calls)", () => {
    // Moonshot keeps reasoning_content in the context of a multi-step tool call; without it:
    // 400 "thinking is enabled but reasoning_content is missing in assistant tool call
    // message at index N".
    const rule: Rule = ({ body }) => {
      const messages = body.messages as Record<string, unknown>[];
      const index = messages.findIndex(
        (m) => m.role === "assistant" && m.tool_calls !== undefined && !m.reasoning_content,
      );
      return index < 0
        ? undefined
        : `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${index}`;
    };

    it("completes a tool-using run", async () => {
      const { imitation, provider } = await openaiVendor("kimi", thinkingReplies(), [rule], {
        stream,
      });
      expect((await run(provider)).status).toBe("completed");
      expect(imitation.rejections).toEqual([]);
    });

    it("without the hand-back, Kimi's 400 names the message", async () => {
      const { provider } = await openaiVendor("kimi", thinkingReplies(), [rule], { stream });
      const result = await run(dropping(provider));
      expect(result.reason).toContain(
        "reasoning_content is missing in assistant tool call message at index 1",
      );
    });
  });

  describe("GLM-4.7 (docs.bigmodel.cn, thinking mode: preserved thinking)", () => {
    // Z.ai asks for reasoning_content to be kept and returned with the tool results. The
    // real API answers 200 without it (and reasons worse); the imitation refuses, so the
    // test can see the rule kept.
    const rule = reasoningContentKept(
      (index) => `messages[${index}]: reasoning_content not preserved`,
    );

    it("completes a tool-using run, the reasoning preserved", async () => {
      const { imitation, provider } = await openaiVendor("glm", thinkingReplies(), [rule], {
        stream,
        reasoningEffort: "high",
      });
      expect((await run(provider)).status).toBe("completed");
      expect(imitation.rejections).toEqual([]);
      expect(imitation.bodies[0]?.thinking).toEqual({ type: "enabled" });
    });
  });

  describe("Qwen on DashScope (help.aliyun.com, model-studio 深度思考)", () => {
    // `enable_thinking` is a boolean outside the OpenAI standard; most thinking models
    // "only support streaming output": a plain request with thinking on is refused.
    const rules: Rule[] = [
      ({ body }) =>
        body.enable_thinking === true && body.stream !== true
          ? "This model only support stream mode, please enable the stream parameter to access the model."
          : undefined,
      ({ body }) =>
        body.enable_thinking !== undefined && typeof body.enable_thinking !== "boolean"
          ? "enable_thinking must be a boolean"
          : undefined,
      reasoningContentKept((index) => `messages[${index}]: reasoning_content not preserved`),
    ];

    it(
      stream
        ? "streams a thinking run to completion"
        : "names the vendor's refusal of a plain thinking request",
      async () => {
        const { imitation, provider } = await openaiVendor("qwen", thinkingReplies(), rules, {
          stream,
          reasoningEffort: "low",
        });
        const result = await run(provider);
        if (stream) {
          expect(result.status).toBe("completed");
          expect(imitation.bodies[0]).toMatchObject({
            enable_thinking: true,
            thinking_budget: 1024,
          });
        } else {
          expect(result.status).toBe("failed");
          expect(result.reason).toContain("only support stream mode");
        }
      },
    );
  });

  describe("Gemini 3 through its OpenAI compatibility (ai.google.dev/gemini-api/docs/thought-signatures)", () => {
    // "you must pass back thought signatures during function calling, otherwise you will get
    // a validation error (4xx)"; in parallel calls only the first carries a signature. On the
    // OpenAI-compatible endpoint it is `extra_content.google.thought_signature` of the call.
    const rule: Rule = ({ body, sent }) => {
      const assistants = (body.messages as Record<string, unknown>[]).filter(
        (m) => m.role === "assistant",
      );
      for (const [reply, message] of assistants.entries()) {
        const original = (sent[reply]?.tool_calls ?? []) as Record<string, unknown>[];
        const back = (message.tool_calls ?? []) as Record<string, unknown>[];
        for (const [position, sentCall] of original.entries()) {
          if (sentCall.extra_content === undefined) continue;
          if (!isDeepStrictEqual(back[position]?.extra_content, sentCall.extra_content)) {
            return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:echo\` , position ${position + 1}.`;
          }
        }
      }
      return undefined;
    };
    const effortRule: Rule = ({ body }) =>
      body.reasoning_effort !== undefined &&
      !["none", "low", "medium", "high"].includes(String(body.reasoning_effort))
        ? `Invalid reasoning_effort: ${String(body.reasoning_effort)}`
        : undefined;
    const signed = (signature: string) => ({ google: { thought_signature: signature } });
    const replies = () => [
      { content: null, tool_calls: [call("c1", "a", signed("CsIBsig-one"))] },
      { content: null, tool_calls: [call("c2", "b", signed("CsIBsig-two")), call("c3", "b")] },
      { content: "都回显了。", extra_content: signed("CsIBsig-text") },
    ];

    it("completes a tool-using run, each signature back on its own call", async () => {
      const { imitation, provider } = await openaiVendor("gemini", replies(), [rule, effortRule], {
        stream,
        reasoningEffort: "max",
      });
      expect((await run(provider)).status).toBe("completed");
      expect(imitation.rejections).toEqual([]);
      expect(imitation.bodies[0]?.reasoning_effort).toBe("high");
      const second = assistantsOf(imitation, 2)[1] as { tool_calls: Record<string, unknown>[] };
      expect(second.tool_calls.map((c) => c.extra_content)).toEqual([
        signed("CsIBsig-two"),
        undefined,
      ]);
    });

    it("without the signatures, Gemini's 400 comes through", async () => {
      const { provider } = await openaiVendor("gemini", replies(), [rule], { stream });
      const result = await run(dropping(provider));
      expect(result.reason).toContain("Function call is missing a thought_signature");
    });
  });

  describe("OpenRouter (openrouter.ai/docs, reasoning tokens: preserving reasoning blocks)", () => {
    // reasoning_details must be passed back unmodified, in their original order, including
    // encrypted blocks (a Gemini or Claude model behind OpenRouter checks them).
    const details = (text: string) => [
      { type: "reasoning.text", text, signature: null, format: "unknown" },
      { type: "reasoning.encrypted", data: `enc-${text}`, format: "google-gemini-v1" },
    ];
    const rule: Rule = ({ body, sent }) => {
      const assistants = (body.messages as Record<string, unknown>[]).filter(
        (m) => m.role === "assistant",
      );
      for (const [reply, message] of assistants.entries()) {
        const original = sent[reply];
        if (original?.tool_calls === undefined) continue;
        const expected = (original.reasoning_details as Record<string, unknown>[]).map(
          (detail, index) => ({ ...detail, index }),
        );
        const back = (message.reasoning_details ?? []) as Record<string, unknown>[];
        const withIndex = back.map((detail, index) => ({ index, ...detail }));
        if (!isDeepStrictEqual(withIndex, expected)) {
          return "Provider returned error: reasoning_details must be passed back unmodified";
        }
      }
      return undefined;
    };
    const replies = () => [
      {
        content: null,
        reasoning: "先 a。",
        reasoning_details: details("先 a。"),
        tool_calls: [call("c1", "a")],
      },
      {
        content: null,
        reasoning: "再 b。",
        reasoning_details: details("再 b。"),
        tool_calls: [call("c2", "b"), call("c3", "b")],
      },
      { content: "好了。" },
    ];

    it("completes a tool-using run, the reasoning_details back unchanged", async () => {
      const { imitation, provider } = await openaiVendor("openrouter", replies(), [rule], {
        stream,
        reasoningEffort: "medium",
      });
      expect((await run(provider)).status).toBe("completed");
      expect(imitation.rejections).toEqual([]);
      expect(imitation.bodies[0]?.reasoning).toEqual({ effort: "medium" });
    });

    it("without them, OpenRouter's 400 comes through", async () => {
      const { provider } = await openaiVendor("openrouter", replies(), [rule], { stream });
      expect((await run(dropping(provider))).reason).toContain(
        "reasoning_details must be passed back",
      );
    });
  });

  describe("MiniMax-M2 (platform.minimaxi.com, OpenAI-compatible interleaved thinking)", () => {
    // The model writes its thinking as <think>…</think> inside content, and the whole
    // content must stay in the history as written.
    const replies = () => [
      { content: "<think>先 a。</think>\n\n我先回显 a。", tool_calls: [call("c1", "a")] },
      { content: "<think>b 两次。</think>", tool_calls: [call("c2", "b"), call("c3", "b")] },
      { content: "<think>好。</think>\n\n都回显了。" },
    ];
    const rule: Rule = ({ body, sent }) => {
      const assistants = (body.messages as Record<string, unknown>[]).filter(
        (m) => m.role === "assistant",
      );
      return assistants.some((message, index) => message.content !== sent[index]?.content)
        ? "assistant content must be passed back as the model wrote it (with <think>)"
        : undefined;
    };

    it("keeps the <think> block in the history and shows it apart from the text", async () => {
      const { imitation } = await openaiVendor("openai", replies(), [rule]);
      const thoughts: string[] = [];
      const texts: string[] = [];
      const provider = createOpenAICompatibleProvider({
        model: "MiniMax-M2",
        baseUrl: imitation.baseUrl,
        stream,
        onReasoning: (text) => thoughts.push(text),
        onText: (text) => texts.push(text),
      });
      const result = await run(provider);
      expect(imitation.rejections).toEqual([]);
      expect(result.status).toBe("completed");
      expect(result.summary).toBe("都回显了。");
      if (stream) {
        expect(thoughts.join("")).toBe("先 a。b 两次。好。");
        expect(texts.join("")).toBe("我先回显 a。都回显了。");
      }
    });
  });

  describe("Anthropic Messages with extended thinking (docs.claude.com, extended thinking with tool use)", () => {
    const thinking = (text: string) => ({
      type: "thinking",
      thinking: text,
      signature: `sig:${text}`,
    });
    const redacted = {
      type: "redacted_thinking",
      data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
    };
    const use = (id: string, text: string) => ({
      type: "tool_use",
      id,
      name: "echo",
      input: { text },
    });
    const replies = () => [
      { content: [thinking("先 a。"), use("toolu_1", "a")] },
      { content: [redacted, thinking("b 两次。"), use("toolu_2", "b"), use("toolu_3", "b")] },
      { content: [thinking("好。"), { type: "text", text: "都回显了。" }] },
    ];
    const claude = async (more: Partial<ProviderOptions> = {}) => {
      const imitation = await startImitation({
        wire: "anthropic",
        replies: replies(),
        rules: ANTHROPIC_THINKING_RULES,
      });
      imitations.push(imitation);
      const provider = createAnthropicProvider({
        model: "claude-thinking",
        baseUrl: imitation.baseUrl,
        apiKey: "sk-ant-test",
        stream,
        ...more,
      });
      return { imitation, provider };
    };

    it("completes a tool-using run, thinking and redacted_thinking back first and unchanged", async () => {
      const { imitation, provider } = await claude({ reasoningEffort: "medium" });
      const result = await run(provider);
      expect(imitation.rejections).toEqual([]);
      expect(result.status).toBe("completed");
      expect(imitation.bodies[0]).toMatchObject({
        thinking: { type: "enabled", budget_tokens: 4096 },
        max_tokens: 4096 + 4096,
      });
      const second = assistantsOf(imitation, 2)[1] as { content: unknown[] };
      expect(second.content.slice(0, 2)).toEqual([redacted, thinking("b 两次。")]);
    });

    it("without the blocks, Anthropic's 400 comes through", async () => {
      const { provider } = await claude();
      expect((await run(dropping(provider))).reason).toContain(
        "Expected `thinking` or `redacted_thinking`",
      );
    });
  });
});

describe("reasoning across models", () => {
  it("a fallback model gets the reasoning text but not another model's signatures", async () => {
    const signed = { google: { thought_signature: "CsIBsig" } };
    const imitation = await startImitation({
      wire: "openai",
      replies: [
        { content: null, reasoning_content: "想一想。", tool_calls: [call("c1", "a", signed)] },
        { content: "好。" },
      ],
      rules: [],
    });
    imitations.push(imitation);
    const first = createOpenAICompatibleProvider({ model: "m-1", baseUrl: imitation.baseUrl });
    const second = createOpenAICompatibleProvider({ model: "m-2", baseUrl: imitation.baseUrl });
    // The first model answers step 1, the fallback every later step.
    const switching: Provider = {
      complete: (request, signal) =>
        (request.step === 1 ? first : second).complete(request, signal),
    };
    expect((await run(switching)).status).toBe("completed");
    const assistant = assistantsOf(imitation, 1)[0] as {
      reasoning_content: string;
      tool_calls: Record<string, unknown>[];
    };
    expect(assistant.reasoning_content).toBe("想一想。");
    expect(assistant.tool_calls[0]).not.toHaveProperty("extra_content");
  });

  it("counts reasoning tokens inside the output, and the output a server left out of completion_tokens", async () => {
    const usage = {
      prompt_tokens: 20,
      completion_tokens: 5,
      completion_tokens_details: { reasoning_tokens: 25 },
      total_tokens: 50,
    };
    const imitation = await startImitation({
      wire: "openai",
      replies: [{ content: "好。", reasoning_content: "想。" }],
      rules: [],
      usage,
    });
    imitations.push(imitation);
    const provider = createOpenAICompatibleProvider({ model: "m", baseUrl: imitation.baseUrl });
    const result = await run(provider);
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 30 });
  });
});
