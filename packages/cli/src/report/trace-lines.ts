import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import { z } from "zod";

/**
 * `trace.jsonl` as the report reads it (docs/contracts.md §7, lessons 26–27 and 30): one JSON object a
 * line, `{ seq, atMs, runId, type, …body }` with body an agent-core `TraceEventBody`. The
 * schemas name the fields the report relies on and keep any others (`looseObject`), so a
 * field added later (`costUsd`, …) passes through; an event type the report does not know
 * is kept as `unknown` and shown, never a crash (an older report reads a newer trace).
 */

const Usage = z.looseObject({ inputTokens: z.number().min(0), outputTokens: z.number().min(0) });
/** A cost in USD; `null` when a price is unknown (docs/contracts.md §7, Cost). */
const Cost = z.number().min(0).nullable().optional();
const Step = z.int().min(1);

const Envelope = z.looseObject({
  seq: z.int().min(1),
  atMs: z.number().min(0),
  runId: z.string().min(1),
  type: z.string().min(1),
});

const KnownEventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("run_started"), goal: z.string(), limits: z.looseObject({}) }),
  z.looseObject({ type: z.literal("resumed") }),
  z.looseObject({ type: z.literal("model_started"), step: Step }),
  z.looseObject({
    type: z.literal("model_completed"),
    step: Step,
    ok: z.boolean(),
    actionType: z.string().optional(),
    detail: z.string(),
    reasoning: z.string().optional(),
    usage: Usage.optional(),
    costUsd: Cost,
  }),
  z.looseObject({
    type: z.literal("model_retry"),
    step: Step,
    attempt: z.int().min(1),
    failureClass: z.string(),
    delayMs: z.number().min(0),
    detail: z.string(),
  }),
  z.looseObject({
    type: z.literal("tool_started"),
    step: Step,
    callId: z.string(),
    tool: z.string(),
    input: z.string(),
  }),
  z.looseObject({
    type: z.literal("tool_completed"),
    step: Step,
    callId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    detail: z.string(),
  }),
  z.looseObject({
    type: z.literal("finish_rejected"),
    step: Step,
    reasons: z.array(z.string()),
    detail: z.string(),
  }),
  z.looseObject({
    type: z.literal("compacted"),
    step: Step,
    estimatedTokens: z.number(),
    compactedTokens: z.number(),
    maxContextTokens: z.number(),
    results: z.array(
      z.looseObject({ callId: z.string(), tool: z.string(), artifactId: z.string() }),
    ),
    totalCompacted: z.number(),
  }),
  z.looseObject({
    type: z.literal("run_finished"),
    status: z.string(),
    code: z.string(),
    reason: z.string(),
    steps: z.int().min(0),
    toolCalls: z.int().min(0),
    usage: Usage,
    costUsd: Cost,
  }),
]);

/** The event types the report understands; any other type is reported as `unknown`. */
export const KNOWN_TRACE_TYPES: readonly string[] = KnownEventSchema.options.map(
  (option) => option.shape.type.value,
);

type Envelope = z.output<typeof Envelope>;
type Known = z.output<typeof KnownEventSchema>;

/** One trace line, read: a known event, or one of a type this report does not know. */
export type ReadTraceEvent =
  | (Known & Pick<Envelope, "seq" | "atMs" | "runId">)
  | {
      readonly type: "unknown";
      readonly seq: number;
      readonly atMs: number;
      readonly runId: string;
      /** The type the line names. */
      readonly originalType: string;
      /** The step it names, when it names one. */
      readonly step?: number;
      /** The whole line, parsed. */
      readonly raw: Record<string, unknown>;
    };

/** A trace file as read back: its events and warnings, or why it cannot be reported. */
export type ReadTrace =
  | {
      readonly ok: true;
      readonly events: readonly ReadTraceEvent[];
      /** Chinese, one a problem the report survived (a torn last line, a gap in `seq`). */
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly message: string };

/**
 * Reads the text of a trace. The last line cut off by a crash mid-write (not JSON) is
 * dropped with a warning and the rest reported; any other line that is not
 * a trace event, or that belongs to another run, is an error naming its line. A gap or a
 * step back in `seq` is a warning: the events there are still worth showing.
 */
export function parseTraceLines(text: string, file = "trace.jsonl"): ReadTrace {
  const read = traceJsonLines(text, file);
  if (!read.ok) return read;
  const warnings: string[] = [];
  const events: ReadTraceEvent[] = [];
  for (const { where, json } of read.lines) {
    const event = readEvent(json);
    if (!event.ok) return { ok: false, message: `${where}不是有效的 trace 事件：${event.problem}` };
    const first = events[0];
    if (first !== undefined && event.event.runId !== first.runId) {
      return {
        ok: false,
        message: `${where}属于另一次运行（runId ${event.event.runId}，前面是 ${first.runId}）`,
      };
    }
    const expected = (events.at(-1)?.seq ?? 0) + 1;
    if (event.event.seq !== expected) {
      warnings.push(
        `${where}：seq 应为 ${expected}，实际为 ${event.event.seq}（中间的事件可能丢失）`,
      );
    }
    events.push(event.event);
  }
  if (read.torn !== undefined) {
    warnings.push(`${read.torn}不完整（写入时中断），已跳过，其余照常报告`);
  }
  if (events.length === 0) return { ok: false, message: `${file} 里没有任何 trace 事件` };
  return { ok: true, events, warnings };
}

function readEvent(
  json: unknown,
): { readonly ok: true; readonly event: ReadTraceEvent } | { ok: false; problem: string } {
  const envelope = Envelope.safeParse(json, CHINESE);
  if (!envelope.success) return { ok: false, problem: describe(envelope.error) };
  const { seq, atMs, runId, type } = envelope.data;
  if (!KNOWN_TRACE_TYPES.includes(type)) {
    const step = (json as { step?: unknown }).step;
    return {
      ok: true,
      event: {
        type: "unknown",
        seq,
        atMs,
        runId,
        originalType: type,
        ...(typeof step === "number" && Number.isSafeInteger(step) && step >= 1 ? { step } : {}),
        raw: envelope.data,
      },
    };
  }
  const known = KnownEventSchema.safeParse(json, CHINESE);
  if (!known.success) return { ok: false, problem: `${type}：${describe(known.error)}` };
  return { ok: true, event: { ...known.data, seq, atMs, runId } };
}

/** zod's own messages in Chinese for these parses only (not `z.config`, which is global). */
const CHINESE = { error: z.locales.zhCN().localeError };

function describe(error: z.ZodError): string {
  return formatValueIssues(toValueIssues(error.issues, "(根)"), "；");
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * The JSON lines of a trace file, each with where it stands (`<file> 第 N 行`). Only the last
 * line can be a write a crash cut short (with or without its newline): it is left out and
 * named in `torn`; any other line that is not JSON is an error naming it.
 */
export function traceJsonLines(
  text: string,
  file: string,
):
  | {
      readonly ok: true;
      readonly lines: readonly { readonly where: string; readonly json: unknown }[];
      readonly torn?: string;
    }
  | { readonly ok: false; readonly message: string } {
  const lines = text.split("\n");
  const last = lines.findLastIndex((line) => line.trim() !== "");
  const read: { where: string; json: unknown }[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const where = `${file} 第 ${index + 1} 行`;
    const json = parseJson(line);
    if (json !== undefined) {
      read.push({ where, json });
      continue;
    }
    if (index === last) return { ok: true, lines: read, torn: where };
    return { ok: false, message: `${where}不是 JSON：trace 文件已损坏` };
  }
  return { ok: true, lines: read };
}
