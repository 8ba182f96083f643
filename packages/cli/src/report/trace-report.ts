import type { ReadTraceEvent } from "./trace-lines.ts";

/**
 * A run's report, built from its trace events alone (pure: the terminal, the HTML page and
 * `--json` all render this one value). Costs follow design §7: a number in USD, `null`
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
  readonly totals: Totals;
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

interface StepDraft {
  step: number;
  startedAtMs: number;
  lastAtMs: number;
  segment: number;
  spansSegments: boolean;
  model?: ModelCall;
  modelStartedAtMs?: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: Cost;
  entries: StepEntry[];
  open: Map<string, { index: number; atMs: number; segment: number }>;
}

/** Builds the report of one run from its trace events, in seq order. */
export function buildTraceReport(
  events: readonly ReadTraceEvent[],
  warnings: readonly string[] = [],
): TraceReport {
  // Steps are placed by number where they first appear and filled in as their events come.
  const order: (
    | { readonly kind: "step"; readonly step: number }
    | { readonly kind: "event"; readonly event: LooseEvent }
  )[] = [];
  const steps = new Map<number, StepDraft>();
  const segments: { first: number; last: number }[] = [];
  let goal: string | undefined;
  let limits: Record<string, unknown> | undefined;
  let end:
    | (RunEnd & { steps: number; toolCalls: number; usage: TokenCounts; costUsd: Cost })
    | undefined;

  const stepOf = (step: number, atMs: number): StepDraft => {
    const segment = segments.length - 1;
    let draft = steps.get(step);
    if (draft === undefined) {
      draft = {
        step,
        startedAtMs: atMs,
        lastAtMs: atMs,
        segment,
        spansSegments: false,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: undefined,
        entries: [],
        open: new Map(),
      };
      steps.set(step, draft);
      order.push({ kind: "step", step });
    }
    if (draft.segment !== segment) draft.spansSegments = true;
    draft.lastAtMs = atMs;
    return draft;
  };

  for (const event of events) {
    // A resume starts a new tracer clock at 0: times compare only within a part of the run.
    if (segments.length === 0 || event.type === "resumed") {
      segments.push({ first: event.atMs, last: event.atMs });
    }
    const segment = segments.at(-1) as { first: number; last: number };
    segment.first = Math.min(segment.first, event.atMs);
    segment.last = Math.max(segment.last, event.atMs);

    switch (event.type) {
      case "run_started":
        goal ??= event.goal;
        limits ??= event.limits;
        break;
      case "resumed":
        order.push({ kind: "event", event: looseEvent(event, event.type) });
        break;
      case "model_started": {
        const draft = stepOf(event.step, event.atMs);
        draft.modelStartedAtMs = event.atMs;
        break;
      }
      case "model_completed": {
        const draft = stepOf(event.step, event.atMs);
        const started = draft.modelStartedAtMs;
        const call: ModelCall = {
          ok: event.ok,
          ...(event.actionType === undefined ? {} : { actionType: event.actionType }),
          detail: event.detail,
          durationMs: started === undefined ? null : event.atMs - started,
        };
        draft.model = call;
        draft.modelStartedAtMs = undefined;
        draft.inputTokens += event.usage?.inputTokens ?? 0;
        draft.outputTokens += event.usage?.outputTokens ?? 0;
        draft.costUsd = addCost(draft.costUsd, event.costUsd);
        draft.entries.push({ kind: "model", call: { ...call, atMs: event.atMs } });
        break;
      }
      case "model_retry":
        stepOf(event.step, event.atMs).entries.push({
          kind: "retry",
          atMs: event.atMs,
          attempt: event.attempt,
          failureClass: event.failureClass,
          delayMs: event.delayMs,
          detail: event.detail,
        });
        break;
      case "tool_started": {
        const draft = stepOf(event.step, event.atMs);
        draft.open.set(event.callId, {
          index: draft.entries.length,
          atMs: event.atMs,
          segment: segments.length - 1,
        });
        draft.entries.push({
          kind: "tool",
          call: {
            callId: event.callId,
            tool: event.tool,
            atMs: event.atMs,
            input: event.input,
            durationMs: null,
          },
        });
        break;
      }
      case "tool_completed": {
        const draft = stepOf(event.step, event.atMs);
        const open = draft.open.get(event.callId);
        draft.open.delete(event.callId);
        const startedEntry = open === undefined ? undefined : draft.entries[open.index];
        const started = startedEntry?.kind === "tool" ? startedEntry.call : undefined;
        const sameClock = open !== undefined && open.segment === segments.length - 1;
        const call: ToolCall = {
          callId: event.callId,
          tool: event.tool,
          atMs: started?.atMs ?? event.atMs,
          // A call refused before it ran has no `tool_started`: its input is not in the trace.
          input: started?.input ?? "",
          ok: event.ok,
          output: event.detail,
          durationMs: started !== undefined && sameClock ? event.atMs - started.atMs : null,
        };
        if (open !== undefined && started !== undefined)
          draft.entries[open.index] = { kind: "tool", call };
        else draft.entries.push({ kind: "tool", call });
        break;
      }
      case "finish_rejected":
        stepOf(event.step, event.atMs).entries.push({
          kind: "rejection",
          atMs: event.atMs,
          reasons: event.reasons,
          detail: event.detail,
        });
        break;
      case "compacted":
        stepOf(event.step, event.atMs).entries.push({
          kind: "compaction",
          atMs: event.atMs,
          estimatedTokens: event.estimatedTokens,
          compactedTokens: event.compactedTokens,
          maxContextTokens: event.maxContextTokens,
          results: event.results,
        });
        break;
      case "run_finished":
        end = {
          atMs: event.atMs,
          status: event.status,
          code: event.code,
          reason: event.reason,
          steps: event.steps,
          toolCalls: event.toolCalls,
          usage: event.usage,
          costUsd: event.costUsd,
        };
        break;
      case "unknown": {
        const loose = looseEvent(event.raw, event.originalType);
        if (event.step === undefined) order.push({ kind: "event", event: loose });
        else stepOf(event.step, event.atMs).entries.push({ kind: "event", event: loose });
        break;
      }
      default: {
        const unreachable: never = event;
        throw new TypeError(`unhandled trace event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  const reports = new Map([...steps].map(([step, draft]) => [step, finishStep(draft)]));
  const stepReports = [...reports.values()];
  const stepEntries = stepReports.flatMap((step) => step.entries);
  const toolCalls = stepEntries.filter((entry) => entry.kind === "tool");
  const summed = stepReports.reduce(
    (sum, step) => ({
      inputTokens: sum.inputTokens + step.inputTokens,
      outputTokens: sum.outputTokens + step.outputTokens,
      costUsd: addCost(sum.costUsd, step.costUsd),
    }),
    { inputTokens: 0, outputTokens: 0, costUsd: undefined as Cost },
  );
  const totals: Totals = {
    steps: end?.steps ?? stepReports.filter((step) => step.model?.ok === true).length,
    toolCalls: end?.toolCalls ?? toolCalls.length,
    toolErrors: toolCalls.filter((entry) => entry.call.ok === false).length,
    // The run's own totals when it finished (they include what a resume carried over).
    inputTokens: end?.usage.inputTokens ?? summed.inputTokens,
    outputTokens: end?.usage.outputTokens ?? summed.outputTokens,
    costUsd: end === undefined || end.costUsd === undefined ? summed.costUsd : end.costUsd,
    durationMs: segments.reduce((sum, part) => sum + (part.last - part.first), 0),
    rejections: stepEntries.filter((entry) => entry.kind === "rejection").length,
    retries: stepEntries.filter((entry) => entry.kind === "retry").length,
    compactions: stepEntries.filter((entry) => entry.kind === "compaction").length,
  };
  const first = events[0];
  return {
    runId: first?.runId ?? "",
    ...(goal === undefined ? {} : { goal }),
    ...(limits === undefined ? {} : { limits }),
    status: end?.status ?? "unfinished",
    ...(end === undefined
      ? {}
      : { end: { atMs: end.atMs, status: end.status, code: end.code, reason: end.reason } }),
    totals,
    timeline: order.map(
      (item): TimelineItem =>
        item.kind === "step" ? { kind: "step", step: reports.get(item.step) as StepReport } : item,
    ),
    warnings,
  };
}

interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Sums costs: an unknown price (`null`) makes the sum unknown; no cost at all stays absent. */
export function addCost(sum: Cost, cost: Cost): Cost {
  if (cost === undefined) return sum;
  if (sum === null || cost === null) return null;
  return (sum ?? 0) + cost;
}

function finishStep(draft: StepDraft): StepReport {
  return {
    step: draft.step,
    startedAtMs: draft.startedAtMs,
    durationMs: draft.spansSegments ? null : draft.lastAtMs - draft.startedAtMs,
    ...(draft.model === undefined ? {} : { model: draft.model }),
    inputTokens: draft.inputTokens,
    outputTokens: draft.outputTokens,
    costUsd: draft.costUsd,
    entries: draft.entries,
  };
}

function looseEvent(raw: Readonly<Record<string, unknown>>, type: string): LooseEvent {
  const { seq, atMs, runId: _runId, type: _type, ...fields } = raw;
  return { seq: Number(seq), atMs: Number(atMs), type, fields };
}
