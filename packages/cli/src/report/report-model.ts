/**
 * The shape of a run's report (`buildTraceReport` builds it; the terminal, the HTML page and
 * `--json` render it). Plain data, so `--json` is this value as it is.
 */

/**
 * A run's report, built from its trace events alone. Costs follow docs/contracts.md §7: a number in USD, `null`
 * when a price was unknown, `undefined` when the trace carries no cost at all; both of the
 * last two are shown as "—".
 */
export interface TraceReport {
  readonly runId: string;
  readonly goal?: string;
  /** The run's budgets as `run_started` recorded them. */
  readonly limits?: Readonly<Record<string, unknown>>;
  /** `run_finished`'s status, or `unfinished` when the trace has none (a crash, a run going on). */
  readonly status: string;
  readonly end?: RunEnd;
  /**
   * The whole run's figures: with children (`spawn_agent`, lesson 39), `inputTokens`,
   * `outputTokens` and `costUsd` include theirs (`subagents` is that part); `steps` and
   * `toolCalls` are the parent's own, as its `run_finished` has them.
   */
  readonly totals: Totals;
  /** The children's part, from their traces under `subagents/<n>/`; absent when none ran. */
  readonly subagents?: SubagentTotals;
  /** The run in order: steps, and the events outside any step (resumes, unknown types). */
  readonly timeline: readonly TimelineItem[];
  /** Problems the report survived, in Chinese. */
  readonly warnings: readonly string[];
}

export interface RunEnd {
  readonly atMs: number;
  readonly status: string;
  readonly code: string;
  readonly reason: string;
}

export interface Totals {
  /** Steps (valid model replies): `run_finished`'s count, else the steps the trace shows. */
  readonly steps: number;
  /** Tools that ran: `run_finished`'s count, else the calls the trace shows. */
  readonly toolCalls: number;
  /** Tool calls whose result was an error. */
  readonly toolErrors: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: Cost;
  /** Wall time the trace covers; a resumed run adds each part's time. */
  readonly durationMs: number;
  readonly rejections: number;
  readonly retries: number;
  readonly compactions: number;
}

/** What a run's children spent together, each child's own totals summed. */
export interface SubagentTotals {
  /** Children with a trace (one that could not be read counts, its cost unknown). */
  readonly runs: number;
  readonly steps: number;
  readonly toolCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: Cost;
}

/** USD; `null`: a price was unknown; `undefined`: the trace has no cost. */
export type Cost = number | null | undefined;

export type TimelineItem =
  | { readonly kind: "step"; readonly step: StepReport }
  | { readonly kind: "event"; readonly event: LooseEvent };

/** An event shown on its own line: a resume, or a type this report does not know. */
export interface LooseEvent {
  readonly seq: number;
  readonly atMs: number;
  readonly type: string;
  /** The event's fields beyond `seq`, `atMs`, `runId` and `type`. */
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface StepReport {
  readonly step: number;
  readonly startedAtMs: number;
  /** From the step's first event to its last (null when a resume sits in between). */
  readonly durationMs: number | null;
  /** The step's model call (the last one when a resume ran it again). */
  readonly model?: ModelCall;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: Cost;
  /** What happened in the step, in order. */
  readonly entries: readonly StepEntry[];
}

export interface ModelCall {
  readonly ok: boolean;
  readonly actionType?: string;
  readonly detail: string;
  /** The reasoning that came with the reply (bounded, masked), shown collapsed under it. */
  readonly reasoning?: string;
  readonly durationMs: number | null;
}

export type StepEntry =
  | { readonly kind: "model"; readonly call: ModelCall & { readonly atMs: number } }
  | { readonly kind: "tool"; readonly call: ToolCall }
  | {
      readonly kind: "retry";
      readonly atMs: number;
      readonly attempt: number;
      readonly failureClass: string;
      readonly delayMs: number;
      readonly detail: string;
    }
  | {
      readonly kind: "rejection";
      readonly atMs: number;
      readonly reasons: readonly string[];
      readonly detail: string;
    }
  | {
      readonly kind: "compaction";
      readonly atMs: number;
      readonly estimatedTokens: number;
      readonly compactedTokens: number;
      readonly maxContextTokens: number;
      readonly results: readonly {
        readonly callId: string;
        readonly tool: string;
        readonly artifactId: string;
      }[];
    }
  | { readonly kind: "event"; readonly event: LooseEvent };

export interface ToolCall {
  readonly callId: string;
  readonly tool: string;
  readonly atMs: number;
  readonly input: string;
  /** `undefined`: the call started and the trace never saw it end. */
  readonly ok?: boolean;
  readonly output?: string;
  readonly durationMs: number | null;
}
