import { readFile } from "node:fs/promises";
import {
  BUILTIN_PRICING_DATE,
  formatValueIssues,
  type ModelPrice,
  type PricingTable,
  PricingTableSchema,
  priceOf,
  toValueIssues,
} from "@coding-agent/agent-core";
import { z } from "zod";

/** The outcome of loading a `--pricing` file: its table, or a message naming the file and field. */
export type PricingLoadResult =
  | { readonly ok: true; readonly pricing: PricingTable }
  | { readonly ok: false; readonly message: string };

/**
 * Reads and validates a `--pricing` file (docs/contracts.md §7): `{ "<model>": { "inputPerMTok",
 * "outputPerMTok", "cachedInputPerMTok"? } }`, USD per million tokens.
 */
export async function loadPricingFile(file: string): Promise<PricingLoadResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    return { ok: false, message: `无法读取价格文件 ${file}：${code || String(error)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `价格文件 ${file} 不是合法 JSON：${(error as Error).message}` };
  }
  // zod's own messages in Chinese for this parse only (not `z.config`, which is global).
  const parsed = PricingTableSchema.safeParse(json, { error: z.locales.zhCN().localeError });
  if (!parsed.success) {
    const issues = formatValueIssues(toValueIssues(parsed.error.issues, "(根)"), "；");
    return {
      ok: false,
      message: `价格文件 ${file} 无效：${issues}（每个模型写 { "inputPerMTok": 数字, "outputPerMTok": 数字, "cachedInputPerMTok"?: 数字 }，单位：美元 / 百万 token）`,
    };
  }
  return { ok: true, pricing: parsed.data };
}

/** The name a run's model is priced by: the fake model is `fake`. */
export function pricedModel(provider: { readonly name: string; readonly model?: string }): string {
  return provider.name === "fake" ? "fake" : (provider.model ?? "");
}

/** The price of a run's model: its `--pricing` file first, then the built-in table; null if unknown. */
export async function resolvePrice(options: {
  readonly model: string;
  readonly pricingPath: string | undefined;
}): Promise<
  { readonly ok: true; readonly price: ModelPrice | null } | (PricingLoadResult & { ok: false })
> {
  let pricing: PricingTable | undefined;
  if (options.pricingPath !== undefined) {
    const loaded = await loadPricingFile(options.pricingPath);
    if (!loaded.ok) return loaded;
    pricing = loaded.pricing;
  }
  return {
    ok: true,
    price: priceOf(options.model, pricing === undefined ? {} : { pricing }) ?? null,
  };
}

/** The usage error of `--max-cost-usd` for a model nobody has a price for. */
export function unknownPriceMessage(model: string): string {
  return `--max-cost-usd 需要模型 ${model} 的价格：内置价格表（${BUILTIN_PRICING_DATE}）里没有它。用 --pricing <file.json> 给出，例如 {"${model}": {"inputPerMTok": 1, "outputPerMTok": 2}}`;
}
