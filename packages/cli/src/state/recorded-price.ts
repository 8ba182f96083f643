import {
  costOf as defaultCostOf,
  type ModelPrice,
  type RunOptions,
  type TokenUsage,
} from "@coding-agent/agent-core";
import type { StateEvent } from "./log.ts";

/**
 * Prices a run whose replies come from its log (a replay, a resume's recorded steps): a
 * recorded reply the `--fallback-model` gave (`model_reply.fallback`) costs what the
 * fallback's recorded price says, not the first model's, so the run's `costUsd` — and a
 * cost budget judged on it — is the original's. A live reply is priced as the loop chose
 * (its own fallback switch included).
 */
export interface RecordedPricing {
  /**
   * Says which reply the provider is giving now: its log line, or undefined for a live one.
   * The loop prices a reply right after it arrives, before it asks for another.
   */
  served(reply: Extract<StateEvent, { type: "model_reply" }> | undefined): void;
  /** `RunOptions.costOf`. */
  readonly costOf: NonNullable<RunOptions["costOf"]>;
}

/** `fallbackPrice`: `run_started.options.fallbackPrice` (undefined: the run had no fallback). */
export function recordedPricing(fallbackPrice: ModelPrice | null | undefined): RecordedPricing {
  let fromFallback = false;
  return {
    served(reply) {
      fromFallback = reply?.fallback === true;
    },
    costOf(usage: TokenUsage | undefined, price: ModelPrice) {
      if (!fromFallback || fallbackPrice === undefined) return defaultCostOf(usage, price);
      // A fallback without a price: that reply's cost is unknown, as it was in the run.
      return fallbackPrice === null ? null : defaultCostOf(usage, fallbackPrice);
    },
  };
}
