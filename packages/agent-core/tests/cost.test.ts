import { describe, expect, it } from "vitest";
import { runAgent } from "../src/agent-loop.ts";
import {
  BUILTIN_PRICING,
  BUILTIN_PRICING_DATE,
  checkCost,
  costOf,
  formatUsd,
  type ModelPrice,
  PricingTableSchema,
  priceOf,
} from "../src/cost.ts";
import { InvalidLimitsError } from "../src/errors.ts";
import { createScriptedProvider } from "../src/testing/index.ts";
import type { ToolSet } from "../src/tools.ts";
import type { TraceEvent } from "../src/trace.ts";
import { call } from "./fixtures/actions.ts";

/** $1 per million input tokens, $2 per million output: 1,000 tokens are a tenth of a cent. */
const PRICE: ModelPrice = { inputPerMTok: 1, outputPerMTok: 2 };
const usage = { inputTokens: 1_000_000, outputTokens: 500_000 };
const tools: ToolSet = { echo: { execute: (input) => input } };
const echo = (n: number) => ({ action: call("echo", { n }), usage });
const finish = { action: { type: "finish", summary: "ok" }, usage };

describe("costOf", () => {
  it("charges input and output tokens at their prices per million", () => {
    expect(costOf(usage, PRICE)).toBe(2);
  });

  it("charges cached input tokens, a part of the input, at the cached price", () => {
    const price = { ...PRICE, cachedInputPerMTok: 0.25 };
    const cached = { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 400_000 };
    expect(costOf(cached, price)).toBeCloseTo(0.6 + 0.1, 12);
  });

  it("charges cached tokens the input price when the model has no cached price", () => {
    const cached = { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 400_000 };
    expect(costOf(cached, PRICE)).toBe(1);
  });

  it("never counts more cached tokens than input tokens", () => {
    const odd = { inputTokens: 10, outputTokens: 0, cachedInputTokens: 1_000 };
    expect(costOf(odd, { ...PRICE, cachedInputPerMTok: 0 })).toBe(0);
  });

  it("costs nothing for a reply without usage", () => {
    expect(costOf(undefined, PRICE)).toBe(0);
  });
});

describe("priceOf", () => {
  it("takes the user's table over the built-in one", () => {
    const mine = { "gpt-4.1": { inputPerMTok: 9, outputPerMTok: 9 } };
    expect(priceOf("gpt-4.1", { pricing: mine })).toEqual(mine["gpt-4.1"]);
    expect(priceOf("gpt-4.1")).toEqual(BUILTIN_PRICING["gpt-4.1"]);
  });

  it("prices a dated snapshot as its model, unless the snapshot has its own entry", () => {
    expect(priceOf("claude-sonnet-4-20250514")).toEqual(BUILTIN_PRICING["claude-sonnet-4"]);
    expect(priceOf("gpt-4.1-2025-04-14")).toEqual(BUILTIN_PRICING["gpt-4.1"]);
    const own = { "gpt-4.1-2025-04-14": { inputPerMTok: 7, outputPerMTok: 7 } };
    expect(priceOf("gpt-4.1-2025-04-14", { pricing: own })?.inputPerMTok).toBe(7);
  });

  it("knows no price for an unknown model or an inherited key", () => {
    expect(priceOf("fake")).toBeUndefined();
    expect(priceOf("constructor")).toBeUndefined();
    // A pricing file's `__proto__` entry does not survive its parse: no model gets it.
    const parsed = PricingTableSchema.parse(
      JSON.parse('{"__proto__": {"inputPerMTok": 1, "outputPerMTok": 1}}'),
    );
    expect(priceOf("__proto__", { pricing: parsed })).toBeUndefined();
  });

  it("ships a table that passes its own schema, with a date", () => {
    expect(PricingTableSchema.safeParse(BUILTIN_PRICING).success).toBe(true);
    expect(BUILTIN_PRICING_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe("checkCost", () => {
  it("goes on below the budget and stops max_cost once it is reached", () => {
    expect(checkCost(0.99, 1)).toEqual({ stop: false });
    expect(checkCost(1, 1)).toMatchObject({ stop: true, code: "max_cost" });
    expect(checkCost(5, undefined)).toEqual({ stop: false });
  });
});

describe("runAgent with a price", () => {
  it("puts each call's cost into model_completed and the run's into run_finished and the result", async () => {
    const events: TraceEvent[] = [];
    const result = await runAgent(
      "任务",
      createScriptedProvider([echo(1), finish]),
      tools,
      { maxSteps: 5 },
      undefined,
      { price: PRICE, trace: (event) => void events.push(event) },
    );
    expect(result).toMatchObject({ status: "completed", costUsd: 4 });
    const completed = events.filter((event) => event.type === "model_completed");
    expect(completed.map((event) => event.costUsd)).toEqual([2, 2]);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", costUsd: 4 });
  });

  it("stops max_cost after the step that reaches the budget, its tool call done", async () => {
    const provider = createScriptedProvider([echo(1), echo(2), echo(3), finish]);
    const result = await runAgent("任务", provider, tools, { maxSteps: 9 }, undefined, {
      price: PRICE,
      maxCostUsd: 4,
    });
    expect(result).toMatchObject({
      status: "budget_exceeded",
      code: "max_cost",
      steps: 2,
      toolCalls: 2,
      costUsd: 4,
    });
    expect(provider.remaining).toBe(2);
  });

  it("counts the tokens of an invalid reply", async () => {
    const result = await runAgent(
      "任务",
      createScriptedProvider([{ action: { type: "nope" }, usage }]),
      tools,
      { maxSteps: 5 },
      undefined,
      { price: PRICE },
    );
    expect(result).toMatchObject({ code: "invalid_action", costUsd: 2 });
  });

  it("reports null costs when the price is unknown, and none without pricing", async () => {
    const events: TraceEvent[] = [];
    const unknown = await runAgent(
      "任务",
      createScriptedProvider([finish]),
      tools,
      { maxSteps: 5 },
      undefined,
      { price: null, trace: (event) => void events.push(event) },
    );
    expect(unknown.costUsd).toBeNull();
    expect(events.find((event) => event.type === "model_completed")).toMatchObject({
      costUsd: null,
    });
    const without: TraceEvent[] = [];
    const plain = await runAgent(
      "任务",
      createScriptedProvider([finish]),
      tools,
      { maxSteps: 5 },
      undefined,
      { trace: (event) => void without.push(event) },
    );
    expect(plain.costUsd).toBeNull();
    expect(without.find((event) => event.type === "model_completed")).not.toHaveProperty("costUsd");
  });

  it("refuses a cost budget without a price, and a price or budget that is not a number", async () => {
    const run = (options: Parameters<typeof runAgent>[5]) =>
      runAgent(
        "任务",
        createScriptedProvider([finish]),
        tools,
        { maxSteps: 5 },
        undefined,
        options,
      );
    await expect(run({ maxCostUsd: 1 })).rejects.toThrow(InvalidLimitsError);
    await expect(run({ maxCostUsd: 1, price: null })).rejects.toThrow(InvalidLimitsError);
    await expect(run({ maxCostUsd: Number.NaN, price: PRICE })).rejects.toThrow(InvalidLimitsError);
    await expect(
      run({ price: { inputPerMTok: -1, outputPerMTok: 1 } as ModelPrice }),
    ).rejects.toThrow(InvalidLimitsError);
  });

  it("prices each call with options.costOf when given, and ends extension_error when it breaks", async () => {
    const flat = () => 0.5;
    const run = (costOf: NonNullable<Parameters<typeof runAgent>[5]>["costOf"]) =>
      runAgent(
        "任务",
        createScriptedProvider([echo(1), finish]),
        tools,
        { maxSteps: 5 },
        undefined,
        {
          price: PRICE,
          ...(costOf === undefined ? {} : { costOf }),
        },
      );
    expect(await run(flat)).toMatchObject({ status: "completed", costUsd: 1 });
    for (const broken of [
      () => Number.NaN,
      () => -1,
      () => {
        throw new Error("boom");
      },
    ]) {
      expect(await run(broken)).toMatchObject({ status: "failed", code: "extension_error" });
    }
  });
});

describe("cost edges", () => {
  const run = (
    options: Parameters<typeof runAgent>[5],
    turns: Parameters<typeof createScriptedProvider>[0] = [finish],
  ) => runAgent("任务", createScriptedProvider(turns), tools, { maxSteps: 5 }, undefined, options);

  it("charges uncached input, cached input and output each at its own price", () => {
    const price = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 };
    const mixed = { inputTokens: 1_000_000, outputTokens: 500_000, cachedInputTokens: 200_000 };
    expect(costOf(mixed, price)).toBeCloseTo(2.4 + 0.06 + 7.5, 12);
  });

  it("prices the built-in models without a pricing file", () => {
    expect(priceOf("claude-sonnet-4-20250514")).toEqual(BUILTIN_PRICING["claude-sonnet-4"]);
    expect(priceOf("gpt-4.1")).toEqual({
      inputPerMTok: 2,
      outputPerMTok: 8,
      cachedInputPerMTok: 0.5,
    });
  });

  it("shows dollars with four decimals, six below a cent", () => {
    expect(formatUsd(0)).toBe("$0.0000");
    expect(formatUsd(1.5)).toBe("$1.5000");
    expect(formatUsd(0.01)).toBe("$0.0100");
    expect(formatUsd(0.0045)).toBe("$0.004500");
    expect(checkCost(0.0144, 0.01)).toEqual({
      stop: true,
      code: "max_cost",
      reason: "已花费 $0.0144，达到成本预算 $0.0100",
    });
  });

  it("takes a budget of $0 and names what is wrong with a bad budget or price", async () => {
    // A budget of nothing is a budget: the run stops before its first call.
    expect(await run({ price: PRICE, maxCostUsd: 0 })).toMatchObject({
      code: "max_cost",
      steps: 0,
    });
    await expect(run({ price: PRICE, maxCostUsd: -1 })).rejects.toThrow(
      new InvalidLimitsError("invalid options: maxCostUsd must be a finite number ≥ 0, got -1"),
    );
    await expect(run({ price: PRICE, maxCostUsd: Number.POSITIVE_INFINITY })).rejects.toThrow(
      /got Infinity/,
    );
    await expect(run({ maxCostUsd: 1 })).rejects.toThrow(
      new InvalidLimitsError("invalid options: maxCostUsd needs the model's price"),
    );
    const bad = run({ price: { inputPerMTok: -1, outputPerMTok: 1 } as ModelPrice });
    await expect(bad).rejects.toThrow(/^invalid options: price: inputPerMTok/);
    await expect(bad).rejects.toHaveProperty("cause");
  });

  it("takes a cost of exactly 0 from options.costOf, and refuses one that is not a number", async () => {
    const echoes = [echo(1), finish];
    expect(await run({ price: PRICE, costOf: () => 0 }, echoes)).toMatchObject({
      status: "completed",
      costUsd: 0,
    });
    const notANumber = () => "0.5" as unknown as number;
    expect(await run({ price: PRICE, costOf: notANumber }, echoes)).toMatchObject({
      code: "extension_error",
    });
  });

  it("takes null from options.costOf as an unknown cost: the call's is null, the run's too", async () => {
    // The second call is the one of unknown cost: the first's $0.5 must not stand as the run's.
    let calls = 0;
    const secondUnknown = () => {
      calls += 1;
      return calls === 2 ? null : 0.5;
    };
    const events: TraceEvent[] = [];
    const result = await run(
      { price: PRICE, costOf: secondUnknown, trace: (event) => void events.push(event) },
      [echo(1), echo(2), finish],
    );
    expect(result).toMatchObject({ status: "completed", costUsd: null });
    expect(
      events.filter((event) => event.type === "model_completed").map((event) => event.costUsd),
    ).toEqual([0.5, null, 0.5]);
  });
});
