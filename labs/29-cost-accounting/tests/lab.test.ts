import { type ModelPrice, runAgent, type ToolSet, type TraceEvent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { costOf } from "@lab";
import { describe, expect, it } from "vitest";

/** 每百万输入 token 2 美元、输出 8 美元、缓存命中 0.5 美元（与 gpt-4.1 的标价同一个形状）。 */
const PRICE: ModelPrice = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 };
const NO_CACHE_PRICE: ModelPrice = { inputPerMTok: 2, outputPerMTok: 8 };

describe("costOf", () => {
  it("costs nothing for a reply without usage", () => {
    expect(costOf(undefined, PRICE), "没有 usage 的回复").toBe(0);
  });

  it("charges input and output tokens at their own prices per million", () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 250_000 };
    expect(costOf(usage, PRICE), "一百万输入 × $2 + 二十五万输出 × $8").toBeCloseTo(4, 12);
    expect(
      costOf({ inputTokens: 1_500, outputTokens: 500 }, PRICE),
      "1500 输入、500 输出",
    ).toBeCloseTo(0.007, 12);
  });

  it("charges the cached part of the input at the cached price", () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 800_000 };
    expect(costOf(usage, PRICE), "八十万命中缓存 × $0.5 + 二十万 × $2").toBeCloseTo(0.8, 12);
  });

  it("charges cached tokens the input price when the model has no cached price", () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 800_000 };
    expect(costOf(usage, NO_CACHE_PRICE), "没有缓存价：全部按 $2").toBeCloseTo(2, 12);
  });

  it("never counts more cached tokens than there are input tokens", () => {
    const usage = { inputTokens: 1_000, outputTokens: 0, cachedInputTokens: 5_000 };
    expect(costOf(usage, PRICE), "命中缓存的最多就是全部输入：1000 × $0.5").toBeCloseTo(0.0005, 12);
  });
});

const tools: ToolSet = { echo: { execute: (input) => input } };
/** 每一轮：一百万输入、二十五万输出，按 PRICE 是 $4。 */
const usage = { inputTokens: 1_000_000, outputTokens: 250_000 };
const echo = (n: number) => ({ action: { type: "tool_call", tool: "echo", input: { n } }, usage });
const finish = { action: { type: "finish", summary: "好了" }, usage };

describe("costOf inside runAgent", () => {
  it("puts each call's cost into model_completed and the run's into the result", async () => {
    const events: TraceEvent[] = [];
    const result = await runAgent(
      "数一数",
      createScriptedProvider([echo(1), finish]),
      tools,
      { maxSteps: 5 },
      undefined,
      {
        price: PRICE,
        costOf,
        trace: (event) => void events.push(event),
      },
    );
    const costs = events.flatMap((event) =>
      event.type === "model_completed" ? [event.costUsd] : [],
    );
    expect(costs, "每一步的 costUsd").toEqual([4, 4]);
    expect(result.costUsd, "整个运行的 costUsd").toBe(8);
    expect(result.usage, "整个运行的 usage").toEqual({
      inputTokens: 2_000_000,
      outputTokens: 500_000,
    });
  });

  it("stops budget_exceeded / max_cost after the step that reaches the budget, not before", async () => {
    const provider = createScriptedProvider([echo(1), echo(2), echo(3), finish]);
    const result = await runAgent("数一数", provider, tools, { maxSteps: 9 }, undefined, {
      price: PRICE,
      costOf,
      maxCostUsd: 8,
    });
    expect(result, "第 2 步花到 $8：它的工具照常执行，第 3 次模型调用不再发出").toMatchObject({
      status: "budget_exceeded",
      code: "max_cost",
      steps: 2,
      toolCalls: 2,
      costUsd: 8,
    });
  });

  it("lets a run under its cost budget finish", async () => {
    const result = await runAgent(
      "数一数",
      createScriptedProvider([echo(1), finish]),
      tools,
      { maxSteps: 5 },
      undefined,
      {
        price: PRICE,
        costOf,
        maxCostUsd: 100,
      },
    );
    expect(result.status, "$8 远低于 $100 的预算").toBe("completed");
  });

  it("stops max_tokens on the token budget, whatever the price", async () => {
    const provider = createScriptedProvider([echo(1), echo(2), finish]);
    const result = await runAgent(
      "数一数",
      provider,
      tools,
      { maxSteps: 9, maxTokens: 1_250_000 },
      undefined,
      {
        price: PRICE,
        costOf,
      },
    );
    expect(result, "第 1 步就用完了 125 万 token 的预算").toMatchObject({
      status: "budget_exceeded",
      code: "max_tokens",
      steps: 1,
    });
  });
});
