import type { ActionType } from "./action.ts";
import type { FailureClass } from "./failure.ts";
import type { BudgetCode, Limits } from "./loop-guard.ts";
import type { TokenUsage } from "./provider.ts";

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
  | "replay_diverged";

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
      readonly usage?: TokenUsage;
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

/** Emits numbered events to an optional sink. */
export interface Tracer {
  /** False without a sink: callers skip building event details nobody will read. */
  readonly enabled: boolean;
  emit(body: TraceEventBody): void;
}

/**
 * Creates a tracer. Without a sink it does nothing. A sink failure is swallowed:
 * the trace is for people and evaluation, and must not decide a run's outcome.
 */
export function createTracer(sink: TraceSink | undefined, clock: () => number): Tracer {
  if (sink === undefined) return { enabled: false, emit() {} };
  const startedAt = clock();
  let seq = 0;
  return {
    enabled: true,
    emit(body) {
      seq += 1;
      const event = Object.freeze({ ...body, seq, atMs: clock() - startedAt });
      try {
        const pending = sink(event);
        // An async sink's rejection is handled, never left unhandled.
        if (pending !== undefined && typeof pending.then === "function") {
          pending.then(undefined, () => {});
        }
      } catch {
        // Deliberately ignored: see the function's comment.
      }
    },
  };
}
