import type { ToolCallAction } from "./action.ts";
import type { ToolCallInfo } from "./extension.ts";
import { afterToolCall } from "./extension-points.ts";
import { clip, type Run, type Stop } from "./run-state.ts";
import { serializeObservation } from "./serialize.ts";
import { asToolError, type ToolError } from "./tool-error.ts";

/**
 * The last phase of a tool call (see `runToolCall`): its value or error, after the
 * extensions had their say, redacted and bounded into the history and the trace.
 */

/** What a run needs to write one call's result. */
export interface CallRef {
  readonly run: Run;
  readonly step: number;
  readonly callId: string;
  readonly tool: string;
  readonly input: ToolCallAction["input"];
  readonly inputError?: string;
}

/** Writes a value or an expected error back, after the extensions (if any) had their say. */
export function record(
  call: CallRef,
  info: ToolCallInfo,
  raw: unknown,
): Stop | undefined | Promise<Stop | undefined> {
  if (call.run.extensions.afterToolCall.length === 0) return write(call, raw);
  const returned = asToolError(raw);
  const result =
    returned === undefined
      ? { ok: true as const, value: raw }
      : { ok: false as const, error: returned };
  return afterToolCall(call.run, info, result).then((replaced) => {
    if (replaced === undefined) return write(call, raw);
    if ("value" in replaced) return write(call, replaced.value);
    const { stop } = replaced;
    toolFailed(call, { code: stop.code, message: `结果未写回：${stop.reason}` }, true);
    return stop;
  });
}

/** The value or expected error, redacted and bounded, into the history and the trace. */
function write(call: CallRef, value: unknown): Stop | undefined {
  const { run } = call;
  const returnedError = asToolError(value);
  if (returnedError !== undefined) return toolErrored(call, returnedError);

  // Redaction stays here, after every extension: nothing an extension returns reaches
  // the history, the model or the trace unmasked.
  const observation = serializeObservation(value, {
    redact: run.redact,
    maxChars: run.maxChars,
    // The loop's cap is a last resort (tools page within it): the cut says how to get the rest.
    omittedHint: `${call.tool} 的结果超出 maxObservationChars：缩小输入再调用一次（read_file 用 startLine/endLine，search/list_files 用 offset）`,
  });
  run.history.appendFlat({
    role: "tool",
    callId: call.callId,
    tool: call.tool,
    ok: true,
    content: observation.text,
    truncated: observation.truncated,
    originalLength: observation.originalLength,
  });
  run.tracer.emit({
    type: "tool_completed",
    step: call.step,
    callId: call.callId,
    tool: call.tool,
    ok: true,
    detail: observation.text,
  });
  run.guard.recordToolResult(true);
  return afterTool(run, call.tool);
}

/**
 * Writes an expected error back as the call's result, so the model can correct
 * itself, and counts it: too many in a row stop the run (`max_tool_errors`).
 */
export function toolErrored(call: CallRef, error: ToolError): Stop | undefined {
  toolFailed(call, error, true);
  const budget = call.run.guard.recordToolResult(false);
  if (budget.stop) return budget;
  return afterTool(call.run, call.tool);
}

/** Checked after every tool: a cancel that landed as the tool ended stops the run here. */
function afterTool(run: Run, tool: string): Stop | undefined {
  if (run.signal?.aborted) return { code: "cancelled", reason: `工具 ${tool} 完成后运行被取消` };
  return undefined;
}

/**
 * Records a tool call that did not produce a value, so every tool call in the
 * history has its result: the error (redacted and bounded) and the text the model
 * sees. Traces the completion when the tool had started or the error is expected.
 */
export function toolFailed(call: Omit<CallRef, "input">, raw: ToolError, traced: boolean): void {
  const { run, step, callId, tool } = call;
  const error = cleanToolError(run, raw);
  const content = serializeObservation({ ok: false, error }, { maxChars: run.maxChars }).text;
  run.history.append({ role: "tool", callId, tool, ok: false, error, content });
  if (traced)
    run.tracer.emit({ type: "tool_completed", step, callId, tool, ok: false, detail: content });
}

/** Issues kept per error: enough to correct an input, never a flood. */
const MAX_ISSUES = 20;

/** A tool error with every text redacted and bounded (a tool may put anything in it). */
function cleanToolError(run: Run, error: ToolError): ToolError {
  const text = (value: string) => clip(run, value);
  const cleaned = { code: text(error.code), message: text(error.message) };
  if (error.issues === undefined) return cleaned;
  return {
    ...cleaned,
    issues: error.issues
      .slice(0, MAX_ISSUES)
      .map((issue) => ({ path: text(issue.path), message: text(issue.message) })),
  };
}
