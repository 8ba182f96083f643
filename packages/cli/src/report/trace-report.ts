import type {
  Cost,
  LooseEvent,
  ModelCall,
  RunEnd,
  StepEntry,
  StepReport,
  SubagentTotals,
  TimelineItem,
  ToolCall,
  Totals,
  TraceReport,
} from "./report-model.ts";
import type { ReadTraceEvent } from "./trace-lines.ts";

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
  const order: Placed[] = [];
  const steps = new Map<number, StepDraft>();
  const segments: { first: number; last: number }[] = [];
  let goal: string | undefined;
  let limits: Record<string, unknown> | undefined;
  let end: RunEndDraft | undefined;

  const stepOf = (step: number, atMs: number): StepDraft => {
    const segment = segments.length - 1;
    let draft = steps.get(step);
    if (draft === undefined) {
      draft = newStepDraft(step, atMs, segment);
      steps.set(step, draft);
      order.push({ kind: "step", step });
    }
    if (draft.segment !== segment) draft.spansSegments = true;
    draft.lastAtMs = atMs;
    return draft;
  };

  for (const event of events) {
    extendSegments(segments, event);

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
      case "model_completed":
        completeModel(stepOf(event.step, event.atMs), event);
        break;
      case "tool_started":
        startTool(stepOf(event.step, event.atMs), event, segments.length - 1);
        break;
      case "tool_completed":
        completeTool(stepOf(event.step, event.atMs), event, segments.length - 1);
        break;
      case "model_retry":
      case "finish_rejected":
      case "compacted":
        stepOf(event.step, event.atMs).entries.push(noteOf(event));
        break;
      case "run_finished": {
        const { atMs, status, code, reason, steps, toolCalls, usage, costUsd } = event;
        end = { atMs, status, code, reason, steps, toolCalls, usage, costUsd };
        break;
      }
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
  const totals = totalsOf([...reports.values()], end, segments);
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

/**
 * A parent's report with its children's (each child's trace built on its own): their
 * tokens and cost added to the parent's totals, and their part named in `subagents`. A
 * child with an unknown cost makes the whole cost unknown. No children: the report as it is.
 */
export function withChildReports(
  report: TraceReport,
  children: readonly TraceReport[],
): TraceReport {
  if (children.length === 0) return report;
  const part: SubagentTotals = children.reduce(
    (sum, child) => ({
      runs: sum.runs + 1,
      steps: sum.steps + child.totals.steps,
      toolCalls: sum.toolCalls + child.totals.toolCalls,
      inputTokens: sum.inputTokens + child.totals.inputTokens,
      outputTokens: sum.outputTokens + child.totals.outputTokens,
      costUsd: addCost(sum.costUsd, child.totals.costUsd),
    }),
    {
      runs: 0,
      steps: 0,
      toolCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: undefined as Cost,
    },
  );
  const t = report.totals;
  return {
    ...report,
    totals: {
      ...t,
      inputTokens: t.inputTokens + part.inputTokens,
      outputTokens: t.outputTokens + part.outputTokens,
      costUsd: addCost(t.costUsd, part.costUsd),
    },
    subagents: part,
    warnings: [...report.warnings, ...children.flatMap((child) => child.warnings)],
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

type TraceEventOf<Type extends ReadTraceEvent["type"]> = Extract<ReadTraceEvent, { type: Type }>;

/** The run's end as the report keeps it, with its own totals. */
type RunEndDraft = RunEnd & {
  steps: number;
  toolCalls: number;
  usage: TokenCounts;
  costUsd: Cost;
};

/** A step (by number) or an event outside steps, where it first appeared. */
type Placed =
  | { readonly kind: "step"; readonly step: number }
  | { readonly kind: "event"; readonly event: LooseEvent };

/**
 * Widens the current part of the run to the event's time. A resume starts a new tracer
 * clock at 0: times compare only within a part of the run.
 */
function extendSegments(segments: { first: number; last: number }[], event: ReadTraceEvent) {
  if (segments.length === 0 || event.type === "resumed") {
    segments.push({ first: event.atMs, last: event.atMs });
  }
  const segment = segments.at(-1) as { first: number; last: number };
  segment.first = Math.min(segment.first, event.atMs);
  segment.last = Math.max(segment.last, event.atMs);
}

function newStepDraft(step: number, atMs: number, segment: number): StepDraft {
  return {
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
}

/** A step's model call, its usage and cost. */
function completeModel(draft: StepDraft, event: TraceEventOf<"model_completed">): void {
  const started = draft.modelStartedAtMs;
  const call: ModelCall = {
    ok: event.ok,
    ...(event.actionType === undefined ? {} : { actionType: event.actionType }),
    detail: event.detail,
    ...(typeof event.reasoning === "string" ? { reasoning: event.reasoning } : {}),
    durationMs: started === undefined ? null : event.atMs - started,
  };
  draft.model = call;
  draft.modelStartedAtMs = undefined;
  draft.inputTokens += event.usage?.inputTokens ?? 0;
  draft.outputTokens += event.usage?.outputTokens ?? 0;
  draft.costUsd = addCost(draft.costUsd, event.costUsd);
  draft.entries.push({ kind: "model", call: { ...call, atMs: event.atMs } });
}

/** A tool call that started: its entry, completed in place when its result comes. */
function startTool(draft: StepDraft, event: TraceEventOf<"tool_started">, segment: number): void {
  draft.open.set(event.callId, { index: draft.entries.length, atMs: event.atMs, segment });
  const { callId, tool, atMs, input } = event;
  draft.entries.push({ kind: "tool", call: { callId, tool, atMs, input, durationMs: null } });
}

/** A tool call's result, in its started entry (its duration only on one tracer clock). */
function completeTool(
  draft: StepDraft,
  event: TraceEventOf<"tool_completed">,
  segment: number,
): void {
  const open = draft.open.get(event.callId);
  draft.open.delete(event.callId);
  const startedEntry = open === undefined ? undefined : draft.entries[open.index];
  const started = startedEntry?.kind === "tool" ? startedEntry.call : undefined;
  const sameClock = open !== undefined && open.segment === segment;
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
}

/** A retry, a rejected finish or a compaction as a step's entry. */
function noteOf(event: TraceEventOf<"model_retry" | "finish_rejected" | "compacted">): StepEntry {
  switch (event.type) {
    case "model_retry": {
      const { atMs, attempt, failureClass, delayMs, detail } = event;
      return { kind: "retry", atMs, attempt, failureClass, delayMs, detail };
    }
    case "finish_rejected":
      return { kind: "rejection", atMs: event.atMs, reasons: event.reasons, detail: event.detail };
    case "compacted": {
      const { atMs, estimatedTokens, compactedTokens, maxContextTokens, results } = event;
      return {
        kind: "compaction",
        atMs,
        estimatedTokens,
        compactedTokens,
        maxContextTokens,
        results,
      };
    }
    default: {
      const unreachable: never = event;
      throw new TypeError(`unhandled trace event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The run's totals: its own when it finished (they include what a resume carried over), else summed. */
function totalsOf(
  stepReports: readonly StepReport[],
  end: RunEndDraft | undefined,
  segments: readonly { readonly first: number; readonly last: number }[],
): Totals {
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
  return {
    steps: end?.steps ?? stepReports.filter((step) => step.model?.ok === true).length,
    toolCalls: end?.toolCalls ?? toolCalls.length,
    toolErrors: toolCalls.filter((entry) => entry.call.ok === false).length,
    inputTokens: end?.usage.inputTokens ?? summed.inputTokens,
    outputTokens: end?.usage.outputTokens ?? summed.outputTokens,
    costUsd: end === undefined || end.costUsd === undefined ? summed.costUsd : end.costUsd,
    durationMs: segments.reduce((sum, part) => sum + (part.last - part.first), 0),
    rejections: stepEntries.filter((entry) => entry.kind === "rejection").length,
    retries: stepEntries.filter((entry) => entry.kind === "retry").length,
    compactions: stepEntries.filter((entry) => entry.kind === "compaction").length,
  };
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
