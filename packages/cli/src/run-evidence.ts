import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TraceEvent } from "@coding-agent/agent-core";
import { z } from "zod";
import { TRACE_FILE } from "./report/trace-command.ts";
import { traceJsonLines } from "./report/trace-lines.ts";
import { parseStateLog, type StateEvent } from "./state/log.ts";

/** A line of `trace.jsonl`: agent-core's event with the run id the JSONL sink adds. */
export type TraceLine = TraceEvent & { readonly runId: string };

/**
 * The records a run leaves in its folder, read back as evidence (lesson 40): the state log
 * and the trace, each event as written. Reading is not judging: a gap in `seq`, a trace of
 * another run, events out of order all come back as they are, for whoever checks them
 * (agent-core's `checkTrace`, the capstone's acceptance). Only what cannot be read at all is
 * an error; a last line a crash cut short is left out with a warning, as the report does.
 */
export interface RunRecords {
  readonly state: readonly StateEvent[];
  readonly trace: readonly TraceLine[];
  /** Chinese, one a line left out. */
  readonly warnings: readonly string[];
}

const Envelope = z.looseObject({
  seq: z.number(),
  atMs: z.number(),
  runId: z.string(),
  type: z.string(),
});

/** `<runDir>/state.jsonl` and `<runDir>/trace.jsonl`, or why they cannot be read (Chinese). */
export async function readRunRecords(
  runDir: string,
): Promise<
  ({ readonly ok: true } & RunRecords) | { readonly ok: false; readonly message: string }
> {
  const stateFile = path.join(runDir, "state.jsonl");
  const traceFile = path.join(runDir, TRACE_FILE);
  let stateText: string;
  let traceText: string;
  try {
    [stateText, traceText] = await Promise.all([
      readFile(stateFile, "utf8"),
      readFile(traceFile, "utf8"),
    ]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { ok: false, message: `读不到运行 ${runDir} 的记录（${code}）` };
  }
  const state = parseStateLog(stateText, stateFile);
  if (!state.ok) return { ok: false, message: state.message };
  const trace = traceLines(traceText, traceFile);
  if (!trace.ok) return { ok: false, message: trace.message };
  const warnings = [...(state.warning === undefined ? [] : [state.warning]), ...trace.warnings];
  return { ok: true, state: state.events, trace: trace.events, warnings };
}

function traceLines(
  text: string,
  file: string,
):
  | { readonly ok: true; readonly events: TraceLine[]; readonly warnings: string[] }
  | { readonly ok: false; readonly message: string } {
  const read = traceJsonLines(text, file);
  if (!read.ok) return read;
  const events: TraceLine[] = [];
  for (const { where, json } of read.lines) {
    if (!Envelope.safeParse(json).success) {
      return { ok: false, message: `${where}不是 trace 事件（缺 seq、atMs、runId 或 type）` };
    }
    events.push(json as TraceLine);
  }
  const warnings = read.torn === undefined ? [] : [`${read.torn}不完整（写入时中断），已跳过`];
  return { ok: true, events, warnings };
}
