import { z } from "zod";
import type { GuardVerdict } from "./loop-guard.ts";
import type { TokenUsage } from "./provider.ts";

/**
 * What one model's tokens cost, in USD per million tokens (docs/contracts.md §7, lesson 29).
 * `cachedInputPerMTok` prices the part of the input the provider served from its prompt
 * cache; without it those tokens cost the input price.
 */
export const ModelPriceSchema = z.strictObject({
  inputPerMTok: z.number().finite().min(0),
  outputPerMTok: z.number().finite().min(0),
  cachedInputPerMTok: z.number().finite().min(0).optional(),
});

/** USD per million tokens of one model. */
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** `{ "<model>": { inputPerMTok, outputPerMTok, cachedInputPerMTok? } }`: a `--pricing` file. */
export const PricingTableSchema = z.record(z.string().min(1), ModelPriceSchema);

/** Prices by model name. */
export type PricingTable = Readonly<Record<string, ModelPrice>>;

/**
 * The day the built-in prices were last checked. Prices change: a table without its date
 * is a guess, and `--pricing` overrides any entry.
 */
export const BUILTIN_PRICING_DATE = "2026-12-01";

/**
 * A few current models, standard (not batch) rates. Anthropic: its pricing page
 * (docs.anthropic.com/en/docs/about-claude/pricing; "cache hits" as the cached price).
 * OpenAI: its pricing page (openai.com/api/pricing) as quoted by price trackers, which
 * agreed with each other on these rates.
 */
export const BUILTIN_PRICING: PricingTable = Object.freeze({
  "gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  "gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6, cachedInputPerMTok: 0.1 },
  "gpt-4o-mini": { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
  "claude-opus-4-1": { inputPerMTok: 15, outputPerMTok: 75, cachedInputPerMTok: 1.5 },
  "claude-sonnet-4": { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
  "claude-3-5-haiku": { inputPerMTok: 0.8, outputPerMTok: 4, cachedInputPerMTok: 0.08 },
});

/** A dated snapshot of a model (`claude-sonnet-4-20250514`, `gpt-4.1-2025-04-14`). */
const SNAPSHOT_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * The price of `model`: the user's table first (exact name), then the built-in one; a
 * dated snapshot is priced as its model when no entry names the snapshot itself.
 * Undefined when neither knows the model.
 */
export function priceOf(
  model: string,
  tables: { readonly pricing?: PricingTable; readonly builtin?: PricingTable } = {},
): ModelPrice | undefined {
  const builtin = tables.builtin ?? BUILTIN_PRICING;
  const base = model.replace(SNAPSHOT_SUFFIX, "");
  for (const name of base === model ? [model] : [model, base]) {
    const price = lookup(tables.pricing, name) ?? lookup(builtin, name);
    if (price !== undefined) return price;
  }
  return undefined;
}

function lookup(table: PricingTable | undefined, name: string): ModelPrice | undefined {
  // Own keys only: a model named "constructor" or "__proto__" has no price.
  return table !== undefined && Object.hasOwn(table, name) ? table[name] : undefined;
}

/**
 * What `usage` costs at `price`, in USD. Cached input tokens are part of the input tokens
 * (as the OpenAI API counts them) and are charged the cached price; a reply without usage
 * costs nothing.
 */
export function costOf(usage: TokenUsage | undefined, price: ModelPrice): number {
  if (usage === undefined) return 0;
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  return (
    ((usage.inputTokens - cached) * price.inputPerMTok +
      cached * cachedPrice +
      usage.outputTokens * price.outputPerMTok) /
    1_000_000
  );
}

/** A cost for people: dollars with enough digits to see a fraction of a cent. */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd !== 0 && Math.abs(usd) < 0.01 ? 6 : 4)}`;
}

/**
 * The cost budget, checked before each model call as the token budget is: the step whose
 * call reaches `maxCostUsd` still acts on its reply, and the run stops before the next call.
 */
export function checkCost(spentUsd: number, maxCostUsd: number | undefined): GuardVerdict {
  if (maxCostUsd === undefined || spentUsd < maxCostUsd) return { stop: false };
  return {
    stop: true,
    code: "max_cost",
    reason: `已花费 ${formatUsd(spentUsd)}，达到成本预算 ${formatUsd(maxCostUsd)}`,
  };
}
