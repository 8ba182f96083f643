import type { ModelPrice } from "@coding-agent/agent-core";
import { pricedModel, resolvePrice, unknownPriceMessage } from "../pricing-file.ts";
import type { RunSpec } from "../run-spec.ts";

/**
 * The prices of the run's model and of its `--fallback-model`: those its log recorded (a
 * resume counts with the prices the run started with), else its `--pricing` file over the
 * built-in table. A cost budget for a model without a price is a usage error, found before
 * any model call.
 */
export async function priceOfRun(spec: RunSpec): Promise<
  | {
      readonly ok: true;
      readonly price: ModelPrice | null;
      /** Absent without `--fallback-model`. */
      readonly fallbackPrice?: ModelPrice | null;
    }
  | { readonly ok: false; readonly message: string }
> {
  const priceOf = async (model: string, recorded: ModelPrice | null | undefined) => {
    const resolved =
      recorded !== undefined
        ? { ok: true as const, price: recorded }
        : await resolvePrice({ model, pricingPath: spec.pricingPath });
    if (resolved.ok && spec.maxCostUsd !== undefined && resolved.price === null) {
      return { ok: false as const, message: unknownPriceMessage(model) };
    }
    return resolved;
  };
  const main = await priceOf(pricedModel(spec.provider), spec.price);
  const { fallbackModel } = spec.provider;
  if (!main.ok || fallbackModel === undefined) return main;
  const fallback = await priceOf(fallbackModel, spec.fallbackPrice);
  return fallback.ok ? { ok: true, price: main.price, fallbackPrice: fallback.price } : fallback;
}
