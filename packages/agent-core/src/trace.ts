import type { ActionType } from "./action.ts";
import { errorText } from "./errors.ts";
import type { FailureClass } from "./failure.ts";
import type { BudgetCode, Limits } from "./loop-guard.ts";
import type { TokenUsage } from "./provider.ts";
import { truncateMiddle } from "./serialize.ts";

/** Why a run stopped (the status is derived from it). */
export type StopCode =
  | "finished"
  | BudgetCode
  | "cancelled"
  | "unknown_tool"
  | "tool_error"
  | "invalid_action"
  | "provider_error"
  | "permission_denied"
  | "finish_rejected"
  | "extension_error"
  | "state_failed"
  /** A replay reached a point where today's runtime decides otherwise than the log. */
  | "replay_diverged"
  | "trace_failed";

/** How a run ended. `blocked`: a permission was refused (see `blockRun`). */
export type RunStatus = "completed" | "failed" | "budget_exceeded" | "cancelled" | "blocked";

/** Maps each stop to the status a caller acts on (exit code, UI, retry). */
export function statusOf(code: StopCode): RunStatus {
  switch (code) {
    case "finished":
      return "completed";
    case "max_steps":
    case "max_tool_calls":
    case "max_tokens":
    case "max_duration":
    case "model_timeout":
    case "max_tool_errors":
    case "repeated_action":
    case "loop_detected":
    case "context_exhausted":
    case "max_cost":
      return "budget_exceeded";
    case "cancelled":
      return "cancelled";
    case "unknown_tool":
    case "tool_error":
    case "invalid_action":
    case "provider_error":
    case "finish_rejected":
    case "extension_error":
    case "state_failed":
    case "replay_diverged":
    case "trace_failed":
      return "failed";
    case "permission_denied":
      return "blocked";
    default: {
      const unreachable: never = code;
      throw new TypeError(`unhandled stop code ${String(unreachable)}`);
    }
  }
}

/** The events of one run, in order. Every text field is redacted before it gets here. */
export type TraceEventBody =
  | { readonly type: "run_started"; readonly goal: string; readonly limits: Limits }
  | { readonly type: "model_started"; readonly step: number }
  | {
      readonly type: "model_completed";
      readonly step: number;
      readonly ok: boolean;
      /** The action's type when the reply was a valid action. */
      readonly actionType?: ActionType;
      /** The action as bounded text, or why the call failed. */
      readonly detail: string;
      /** The reasoning that came with the reply, as bounded, redacted text. */
      readonly reasoning?: string;
      readonly usage?: TokenUsage;
      /** The model that answered, when the provider names it (or the fallback answered). */
      readonly model?: string;
      /** What this call cost in USD; null when the model's price is unknown; absent without pricing. */
      readonly costUsd?: number | null;
    }
  | {
      /** A model call failed `retryable`; the step's call is tried again after `delayMs`. */
      readonly type: "model_retry";
      readonly step: number;
      /** The attempt that failed, from 1. */
      readonly attempt: number;
      readonly failureClass: FailureClass;
      readonly delayMs: number;
      /** The failure's fingerprint: class, HTTP status, redacted and bounded message. */
      readonly detail: string;
      /**
       * Set when the run's model failed retryably on every attempt and this model (the
       * run's `retry.fallback`) is asked instead, from this step on.
       */
      readonly fallbackModel?: string;
    }
  | {
      readonly type: "tool_started";
      readonly step: number;
      readonly callId: string;
      readonly tool: string;
      readonly input: string;
    }
  | {
      readonly type: "tool_completed";
      readonly step: number;
      readonly callId: string;
      readonly tool: string;
      readonly ok: boolean;
      /** The observation text on success, the error text otherwise. */
      readonly detail: string;
    }
  | {
      /** The model proposed to finish and an extension rejected it; the run goes on. */
      readonly type: "finish_rejected";
      readonly step: number;
      readonly reasons: readonly string[];
      /** What the model is told is missing. */
      readonly detail: string;
    }
  | {
      /**
       * A request over the context budget was sent compacted: older tool results were
       * replaced by stubs naming their artifacts (see `createContextBudget`).
       */
      readonly type: "compacted";
      readonly step: number;
      /** The estimate of the request before and after compaction, and the budget. */
      readonly estimatedTokens: number;
      readonly compactedTokens: number;
      readonly maxContextTokens: number;
      /** The results compacted for the first time in this request. */
      readonly results: readonly CompactedResult[];
      /** Every result this request shows as a stub. */
      readonly totalCompacted: number;
    }
  | {
      /**
       * A resumed run goes on here (`coding-agent resume`): the events before it are the
       * run's earlier part, `fromSeq` the last of them.
       */
      readonly type: "resumed";
      readonly fromSeq: number;
      /** Model replies the earlier part already recorded. */
      readonly steps: number;
    }
  | {
      readonly type: "run_finished";
      readonly status: RunStatus;
      readonly code: StopCode;
      readonly reason: string;
      readonly steps: number;
      readonly toolCalls: number;
      readonly usage: TokenUsage;
      /** What the run's model calls cost in USD; null when the model's price is unknown. */
      readonly costUsd: number | null;
    };

/** A tool result a compacted request shows as a stub: the call and where its text is. */
export interface CompactedResult {
  readonly callId: string;
  readonly tool: string;
  readonly artifactId: string;
}

/** A trace event: a body plus a strictly increasing `seq` and the run-relative time. */
export type TraceEvent = TraceEventBody & {
  readonly seq: number;
  /** Milliseconds since the run started, from the run's clock. */
  readonly atMs: number;
};

/** Receives trace events. A sink that throws (or rejects) never changes the run. */
export type TraceSink = (event: TraceEvent) => void | Promise<void>;

/** Emits numbered events to optional sinks and to a required one. */
export interface Tracer {
  /** False without a sink: callers skip building event details nobody will read. */
  readonly enabled: boolean;
  emit(body: TraceEventBody): void;
  /**
   * Why the required sink failed (its first throw or rejection), once it has; the loop
   * then ends the run `trace_failed` at its next phase boundary.
   */
  readonly failure: string | undefined;
  /** Resolves once every write the required sink has started has settled. */
  settled(): Promise<void>;
}

/**
 * Creates a tracer. Without sinks it does nothing. `sink` is optional in spirit: its
 * failure is swallowed, since a trace for people and evaluation must not decide a run's
 * outcome. `required` is a sink the run cannot go on without (a trace file the user was
 * promised): its first throw or rejection is kept as `failure`, it gets no event after
 * that (a trace with a gap is worse than one that stops), and the loop ends the run
 * `trace_failed`. Both get the same numbered, frozen events; the tracer does no I/O.
 */
export function createTracer(
  sink: TraceSink | undefined,
  clock: () => number,
  required?: TraceSink,
): Tracer {
  if (sink === undefined && required === undefined) {
    return {
      enabled: false,
      emit() {},
      failure: undefined,
      settled: () => Promise.resolve(),
    };
  }
  const startedAt = clock();
  let seq = 0;
  let failure: string | undefined;
  const pending = new Set<Promise<void>>();
  const fail = (error: unknown) => {
    failure ??= `轨迹写入失败：${errorText(error)}`;
  };
  const toRequired = (event: TraceEvent) => {
    if (required === undefined || failure !== undefined) return;
    try {
      const written = required(event);
      if (written !== undefined && typeof written.then === "function") {
        const tracked: Promise<void> = Promise.resolve(written).then(
          () => {
            pending.delete(tracked);
          },
          (error: unknown) => {
            pending.delete(tracked);
            fail(error);
          },
        );
        pending.add(tracked);
      }
    } catch (error) {
      fail(error);
    }
  };
  return {
    enabled: true,
    get failure() {
      return failure;
    },
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    emit(body) {
      seq += 1;
      const event = Object.freeze({ ...body, seq, atMs: clock() - startedAt });
      toRequired(event);
      if (sink === undefined) return;
      try {
        const delivered = sink(event);
        // An async sink's rejection is handled, never left unhandled.
        if (delivered !== undefined && typeof delivered.then === "function") {
          delivered.then(undefined, () => {});
        }
      } catch {
        // Deliberately ignored: see the function's comment.
      }
    },
  };
}

/** Longest text a bounded trace event keeps in one field (its head and tail, marked). */
export const MAX_TRACE_FIELD_CHARS = 4_000;

/** Most entries a bounded trace event keeps in one list (the first ones). */
export const MAX_TRACE_LIST_ITEMS = 64;

/**
 * The event as a trace file or an exporter keeps it: every text longer than `maxChars`
 * cut in the middle (head and tail kept around a marker naming what was cut), every list
 * longer than `MAX_TRACE_LIST_ITEMS` cut to its first entries, and `truncated: true` when
 * anything was cut. Whatever a run puts in an event (a goal of a megabyte, an observation
 * under a large `maxObservationChars`), a line stays bounded. Numbers and names are kept.
 */
export function boundTraceEvent<E extends object>(
  event: E,
  maxChars: number = MAX_TRACE_FIELD_CHARS,
): E & { readonly truncated?: true } {
  let cut = false;
  const bound = (value: unknown): unknown => {
    if (typeof value === "string") {
      if (value.length <= maxChars) return value;
      cut = true;
      return truncateMiddle(value, maxChars).text;
    }
    if (Array.isArray(value)) {
      if (value.length > MAX_TRACE_LIST_ITEMS) cut = true;
      return value.slice(0, MAX_TRACE_LIST_ITEMS).map(bound);
    }
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(value)) out[key] = bound(entry);
      return out;
    }
    return value;
  };
  const bounded = bound(event) as E;
  return cut ? { ...bounded, truncated: true } : bounded;
}
