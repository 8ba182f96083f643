import type { AbortRace } from "./abortable.ts";
import type { ModelPrice } from "./cost.ts";
import type { ExtensionChain } from "./extension.ts";
import type { Limits, RunGuard } from "./loop-guard.ts";
import type { RunHistory } from "./messages.ts";
import type { Provider, TokenUsage } from "./provider.ts";
import type { Redactor } from "./redact.ts";
import type { ModelRetryOptions } from "./retry.ts";
import type { RunLedger } from "./run-account.ts";
import { serializeObservation, truncateMiddle } from "./serialize.ts";
import type { Task } from "./task.ts";
import type { ToolRegistry } from "./tools.ts";
import type { StopCode, Tracer } from "./trace.ts";

/** State shared by the phases of one run. */
export interface Run {
  readonly task: Task;
  readonly provider: Provider;
  readonly tools: ToolRegistry;
  readonly guard: RunGuard;
  /** The limits the guard enforces (the caller's, tightened by the task's budgets). */
  readonly limits: Limits;
  readonly history: RunHistory;
  readonly tracer: Tracer;
  readonly redact: Redactor;
  /** Cap on an observation, an error text and a reason. */
  readonly maxChars: number;
  readonly signal: AbortSignal | undefined;
  /** What provider, tools and extensions receive: the caller's signal, or one that never fires. */
  readonly callSignal: AbortSignal;
  /** Races each provider, tool and extension call against the signal, with one listener per run. */
  readonly race: AbortRace;
  /** Call ids already in the history: a model may reuse one, the history may not. */
  readonly callIds: Set<string>;
  readonly retry: ModelRetryOptions | undefined;
  /** Set once the run's model failed for good and `retry.fallback` answers instead. */
  onFallback: boolean;
  /** The model named by the last valid reply (a provider's `model`, or the fallback's name). */
  lastModel: string | undefined;
  readonly extensions: ExtensionChain;
  /** Rejected finish proposals that end the run (`finish_rejected`) once reached. */
  readonly maxFinishRejections: number;
  finishRejections: number;
  /** The model's price: undefined without pricing, null when its price is unknown. */
  readonly price: ModelPrice | null | undefined;
  /** The fallback model's price, for the calls it answers (see `onFallback`). */
  readonly fallbackPrice: ModelPrice | null | undefined;
  readonly maxCostUsd: number | undefined;
  /** Prices one call's usage (`RunOptions.costOf`, default `costOf`). */
  readonly costOf: (usage: TokenUsage | undefined, price: ModelPrice) => number | null;
  /** USD the run's model calls cost so far (0 without a price). */
  costUsd: number;
  /** False once a call's cost was unknown: `costUsd` is then a part, and the run's cost unknown. */
  costKnown: boolean;
  /** The run's account (`RunOptions.account`): checked after its own budgets, with what was charged. */
  readonly account: RunLedger | undefined;
}

/** Why a phase ends the run: the stop code and a readable reason (redacted at the end). */
export interface Stop {
  readonly code: StopCode;
  readonly reason: string;
}

/** Redacted and bounded by the run's cap: for error texts and reasons. */
export function clip(run: Run, text: string): string {
  return truncateMiddle(run.redact(text), run.maxChars).text;
}

/** Longest action or input text in a trace event (a trace is for reading, not replay). */
const MAX_TRACE_DETAIL_CHARS = 2_000;

/** Bounded, redacted text of an action or input, for the trace only. */
export function boundedText(run: Run, value: unknown): string {
  return serializeObservation(value, {
    redact: run.redact,
    maxChars: Math.min(MAX_TRACE_DETAIL_CHARS, run.maxChars),
  }).text;
}

/** The cost of one call: null without a known price (or when `costOf` says so), false when `costOf` broke. */
export function callCost(run: Run, usage: TokenUsage | undefined): number | null | false {
  const price = run.onFallback ? run.fallbackPrice : run.price;
  if (price === undefined || price === null) return null;
  try {
    const cost = run.costOf(usage, price);
    if (cost === null) return null;
    return typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : false;
  } catch {
    return false;
  }
}

/** The stop a failed required trace asks for at a phase boundary. */
export function traceStop(run: Run): Stop | undefined {
  const failure = run.tracer.failure;
  return failure === undefined ? undefined : { code: "trace_failed", reason: failure };
}
