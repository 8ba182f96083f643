import { type ModelPrice, ModelPriceSchema } from "./cost.ts";
import { InvalidLimitsError } from "./errors.ts";
import type { RunExtension } from "./extension.ts";
import { formatValueIssues, toValueIssues } from "./issues.ts";
import type { TokenUsage } from "./provider.ts";
import type { Redactor } from "./redact.ts";
import type { ModelRetryOptions } from "./retry.ts";
import type { RunAccount } from "./run-account.ts";
import type { TraceSink } from "./trace.ts";

/** Optional collaborators of a run. */
export interface RunOptions {
  /** Receives trace events; never changes the result. */
  readonly trace?: TraceSink;
  /**
   * Receives the same events, and the run cannot go on without it (a trace file): its
   * first throw or rejection ends the run `failed`, code `trace_failed`, at the next phase
   * boundary (before a model call, before acting on a reply, before each tool call), or
   * at the end when the failing write was the last one. It gets no event after a failure.
   */
  readonly requiredTrace?: TraceSink;
  /** Milliseconds clock for the duration budget and trace times. */
  readonly clock?: () => number;
  /** Cap on the characters of one observation or error text. Default 8,000. */
  readonly maxObservationChars?: number;
  /**
   * Masks secrets in every text that enters the history, the result or the trace.
   * Default: the built-in patterns plus the values of secret-looking environment
   * variables, read when the run starts.
   */
  readonly redact?: Redactor;
  /**
   * Retries a model call that failed `retryable` (no answer, HTTP 408/429/5xx, its own
   * `modelTimeoutMs`), with backoff; see `ModelRetryOptions`. Default: no retry.
   */
  readonly retry?: ModelRetryOptions;
  /** Features plugged into the loop's steps, asked in this order (see `RunExtension`). */
  readonly extensions?: readonly RunExtension[];
  /**
   * Rejected finish proposals (`RunExtension.onFinish`) a run survives: the one that
   * reaches this number ends it `failed`, code `finish_rejected`. Default 3.
   */
  readonly maxFinishRejections?: number;
  /**
   * The model's price (see `priceOf`): each call's cost goes into its `model_completed`
   * event, the run's into `run_finished` and the result. null: the price is unknown (the
   * costs are null). Default: no pricing at all (the result's `costUsd` is null).
   */
  readonly price?: ModelPrice | null;
  /**
   * USD the run may spend on model calls: once reached, the run stops before the next
   * call, `budget_exceeded`, code `max_cost`. Needs a `price`.
   */
  readonly maxCostUsd?: number;
  /**
   * What one call's tokens cost at `price`; default `costOf` (per million tokens, cached
   * input at its own price). A provider with another scheme (a long-context surcharge, say)
   * passes its own. null: this call's cost is unknown (as with an unknown price: the run's
   * `costUsd` is then null) — a replay pricing a recorded reply of a model with no price.
   */
  readonly costOf?: (usage: TokenUsage | undefined, price: ModelPrice) => number | null;
  /**
   * The run's account (`createRunAccount`): spending made for the run outside its loop (a
   * subagent's run) is charged to it, and counts against every budget with the run's own —
   * steps, tokens and cost before each model call, tool calls before each tool call, after
   * the run's own checks (a stop then names the charged part). The account reads the run's
   * own spending as it goes (`own()`). One account per run: a second run given it throws.
   */
  readonly account?: RunAccount;
}

/** Finish rejections a run survives when `maxFinishRejections` is not given. */
export const DEFAULT_MAX_FINISH_REJECTIONS = 3;

/** The options `runAgent` checks itself (the others are checked where they are used). */
export interface CheckedRunOptions {
  readonly maxFinishRejections: number;
  readonly price: ModelPrice | null | undefined;
  /** The price of `retry.fallback`'s calls: its own when given, else `price`. */
  readonly fallbackPrice: ModelPrice | null | undefined;
  readonly maxCostUsd: number | undefined;
}

/** Validates a run's finish-rejection limit, price and cost budget; throws `InvalidLimitsError`. */
export function checkRunOptions(options: RunOptions): CheckedRunOptions {
  const maxFinishRejections = options.maxFinishRejections ?? DEFAULT_MAX_FINISH_REJECTIONS;
  if (!Number.isSafeInteger(maxFinishRejections) || maxFinishRejections < 1) {
    throw new InvalidLimitsError(
      `invalid options: maxFinishRejections must be an integer ≥ 1, got ${String(maxFinishRejections)}`,
    );
  }
  const { maxCostUsd } = options;
  const price = checkedPrice(options.price, "price");
  const fallback = options.retry?.fallback;
  const fallbackPrice =
    fallback !== undefined && "price" in fallback
      ? checkedPrice(fallback.price, "retry.fallback.price")
      : price;
  if (maxCostUsd !== undefined) {
    if (!Number.isFinite(maxCostUsd) || maxCostUsd < 0) {
      throw new InvalidLimitsError(
        `invalid options: maxCostUsd must be a finite number ≥ 0, got ${String(maxCostUsd)}`,
      );
    }
    // A budget nobody can count is no budget: refuse it rather than never stop.
    if (price === undefined || price === null) {
      throw new InvalidLimitsError("invalid options: maxCostUsd needs the model's price");
    }
    // Without a fallback of its own price, `fallbackPrice` is the run's, known by now.
    if (fallbackPrice === undefined || fallbackPrice === null) {
      throw new InvalidLimitsError("invalid options: maxCostUsd needs the fallback model's price");
    }
  }
  return { maxFinishRejections, price, fallbackPrice, maxCostUsd };
}

function checkedPrice(
  price: ModelPrice | null | undefined,
  name: string,
): ModelPrice | null | undefined {
  if (price === undefined || price === null) return price;
  const parsed = ModelPriceSchema.safeParse(price);
  if (parsed.success) return parsed.data;
  const details = formatValueIssues(toValueIssues(parsed.error.issues), "; ");
  throw new InvalidLimitsError(`invalid options: ${name}: ${details}`, { cause: parsed.error });
}
