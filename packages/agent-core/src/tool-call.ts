import type { ToolCallAction } from "./action.ts";
import { errorText, isAbortError } from "./errors.ts";
import type { ToolCallInfo } from "./extension.ts";
import { beforeToolCall } from "./extension-points.ts";
import { boundedText, type Run, type Stop } from "./run-state.ts";
import { timedCall } from "./timed-call.ts";
import type { ToolError } from "./tool-error.ts";
import { type CallRef, record, toolErrored, toolFailed } from "./tool-record.ts";
import { isBlockedOutcome, type ToolInput, type ToolInputCheck } from "./tools.ts";

export { toolFailed } from "./tool-record.ts";

/** A redacted tool call as recorded: its `callId` is always set and unique in the run. */
export type RecordedToolCall = ToolCallAction & { readonly callId: string };

/** A call the model asked for, already in the history: the recorded call and the raw name. */
export interface PendingCall {
  readonly action: RecordedToolCall;
  /** The tool name as the model wrote it, used only to find the tool. */
  readonly name: string;
}

/**
 * Runs one recorded tool call in three phases and writes its result back as a tool
 * message, in the order of the calls: prepare (find the tool, validate the input, check
 * the budgets, ask the extensions and the tool's permission) · execute · record (`tool-record.ts`). An
 * expected error (invalid input, a veto, a tool returning `toolError(...)`) is written
 * back like a value and the run goes on; returns a stop when the run must end (an
 * unknown tool, a throwing tool, a budget, a refusal, a cancel).
 */
export function runToolCall(
  run: Run,
  pending: PendingCall,
): Stop | undefined | Promise<Stop | undefined> {
  const call: CallRef = { run, step: run.guard.steps, ...pending.action };
  // Synchronous up to the tool's start unless an extension is asked: each await is a
  // microtask hop on every tool call.
  const prepared = prepare(call, pending.name);
  return prepared instanceof Promise
    ? prepared.then((ready) => proceed(call, ready))
    : proceed(call, prepared);
}

export function proceed(
  call: CallRef,
  prepared: Prepared,
): Stop | undefined | Promise<Stop | undefined> {
  if (prepared.kind === "stop") return prepared.stop;
  if (prepared.kind === "error") return toolErrored(call, prepared.error);
  return execute(call, prepared.info, prepared.answer);
}

export type Prepared =
  | { readonly kind: "stop"; readonly stop: Stop }
  | { readonly kind: "error"; readonly error: ToolError }
  | {
      readonly kind: "ready";
      readonly info: ToolCallInfo;
      /** An extension's answer in place of running the tool. */
      readonly answer?: { readonly value: unknown };
    };

/** Everything before a tool runs; a call that ends here is answered but not counted. */
export function prepare(call: CallRef, name: string): Prepared | Promise<Prepared> {
  const { run, tool: toolName } = call;
  const tool = run.tools.get(name);
  if (tool === undefined) {
    // Skipping it, or treating it as a message, would let the model believe it ran.
    const known = run.tools.names.length > 0 ? run.tools.names.join("、") : "（无）";
    const reason = `未知工具：${toolName}（已注册：${known}）`;
    return notRun(call, { code: "unknown_tool", message: reason }, reason);
  }
  if (call.inputError !== undefined) {
    // The provider could not read the arguments: nothing to validate, nothing to run.
    const issue = { path: "(root)", message: call.inputError };
    const message = `工具 ${toolName} 的输入无法读取：${call.inputError}`;
    return { kind: "error", error: { code: "invalid_input", message, issues: [issue] } };
  }
  let checked: ToolInputCheck;
  try {
    checked = run.tools.validate(name, call.input);
  } catch (error) {
    // A schema that throws (or is async) is the tool author's bug, not the model's.
    const message = errorText(error);
    const reason = `工具 ${toolName} 的输入校验出错：${message}`;
    return notRun(call, { code: "tool_error", message }, reason);
  }
  // Invalid input never reaches execute and is not a tool call: the model gets every
  // problem back, at its path, and may correct itself.
  if (!checked.ok) return { kind: "error", error: checked.error };

  const budget = run.guard.beforeToolCall();
  if (budget.stop)
    return notRun(call, { code: budget.code, message: `未执行：${budget.reason}` }, budget);
  const cancelled = cancelledBefore(call);
  if (cancelled !== undefined) return cancelled;
  // The run's own calls with what was charged to its account (a subagent's).
  const charged = run.account?.beforeToolCall();
  if (charged?.stop)
    return notRun(call, { code: charged.code, message: `未执行：${charged.reason}` }, charged);
  // The same object goes to the extensions, `authorize` and `execute`.
  const info: ToolCallInfo = {
    step: call.step,
    callId: call.callId,
    tool: toolName,
    input: checked.input,
    definition: tool,
  };
  if (run.extensions.beforeToolCall.length === 0) return { kind: "ready", info };
  return askExtensions(call, info, name);
}

/** The extensions' (and `authorize`'s) say on a call that is otherwise ready to run. */
async function askExtensions(call: CallRef, info: ToolCallInfo, name: string): Promise<Prepared> {
  const { run, tool: toolName } = call;
  // Waiting for an answer spends the run's time: its deadline applies, not toolTimeoutMs
  // (how long to wait for a person is the extension's own limit).
  // A rewritten input is checked by the same schema as the model's (it may throw likewise).
  const validate = (input: ToolInput) => {
    try {
      return run.tools.validate(name, input);
    } catch (error) {
      const message = `工具 ${toolName} 的输入校验出错：${errorText(error)}`;
      return { ok: false as const, error: { code: "tool_error", message } };
    }
  };
  const asked = await beforeToolCall(run, info, validate);
  const { decision } = asked;
  // From here on the call is the one the extensions let through (rewritten or not).
  const ready = asked.call;
  switch (decision.kind) {
    case "run":
      return { kind: "ready", info: ready };
    case "answer":
      return { kind: "ready", info: ready, answer: { value: decision.value } };
    case "veto":
      return { kind: "error", error: decision.error };
    case "stop": {
      const reason = run.redact(decision.reason);
      return notRun(
        call,
        { code: decision.code, message: `未执行：${reason}` },
        {
          code: decision.code,
          reason,
        },
      );
    }
    case "block": {
      const reason = `工具 ${toolName} 被阻止：${run.redact(decision.reason)}`;
      return notRun(call, { code: "permission_denied", message: reason }, reason);
    }
    case "timeout": {
      const reason = `工具 ${toolName} 等待许可时用完时间预算 ${run.limits.maxDurationMs} ms`;
      return notRun(call, { code: "max_duration", message: `未执行：${reason}` }, reason);
    }
    case "aborted":
      return notRun(
        call,
        { code: "cancelled", message: "未执行：等待许可时运行被取消" },
        `工具 ${toolName} 等待许可时运行被取消`,
      );
    case "error": {
      if (isAbortError(decision.error) || run.signal?.aborted) {
        return notRun(
          call,
          { code: "cancelled", message: "未执行：等待许可时运行被取消" },
          `工具 ${toolName} 等待许可时运行被取消`,
        );
      }
      // A permission check that breaks never lets the call through.
      const problem = `许可检查出错：${errorText(decision.error)}`;
      return notRun(
        call,
        { code: "tool_error", message: `未执行：${problem}` },
        `工具 ${toolName} 的${problem}`,
      );
    }
    default: {
      const unreachable: never = decision;
      throw new TypeError(`unhandled decision ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Answers a call that never ran (not traced as completed) and ends the run. */
function notRun(call: CallRef, error: ToolError, stop: string | Stop): Prepared {
  toolFailed(call, error, false);
  return {
    kind: "stop",
    stop: typeof stop === "string" ? { code: error.code as Stop["code"], reason: stop } : stop,
  };
}

/**
 * A cancel that landed since the model replied: the call must not be counted, traced or
 * run. Asked before the extensions and again right before the tool starts (in the same
 * tick as the start, so no cancel can land in between).
 */
function cancelledBefore(call: CallRef): Prepared | undefined {
  if (!call.run.signal?.aborted) return undefined;
  const reason = `工具 ${call.tool} 执行前运行被取消`;
  return notRun(call, { code: "cancelled", message: "未执行：运行已取消" }, reason);
}

/** Counts and traces the call, runs it (or takes an extension's answer), then records it. */
async function execute(
  call: CallRef,
  info: ToolCallInfo,
  answer: { readonly value: unknown } | undefined,
): Promise<Stop | undefined> {
  const stop = begin(call, info);
  if (stop !== undefined) return stop;
  const settled =
    answer !== undefined
      ? ({ kind: "value", value: answer.value } as const)
      : await settle(call, info);
  return finish(call, info, settled);
}

/** What running a tool came to: a value, an error it threw, a timeout, a cancel. */
export type ToolOutcome = Awaited<ReturnType<typeof settle>>;

/** Runs the tool under the run's deadline and the tool timeout. */
export function settle(call: CallRef, info: ToolCallInfo) {
  return timedCall(
    call.run,
    (signal) => info.definition.execute(info.input, signal),
    call.run.limits.toolTimeoutMs,
  );
}

/**
 * The start of a call that will run: a cancel since it was prepared stops it (answered, not
 * counted); else it is traced as started and counted. A stop when it must not start.
 */
export function begin(call: CallRef, info: ToolCallInfo): Stop | undefined {
  const { run, tool: toolName } = call;
  const cancelled = cancelledBefore(call);
  if (cancelled?.kind === "stop") return cancelled.stop;
  if (run.tracer.enabled) {
    run.tracer.emit({
      type: "tool_started",
      step: call.step,
      callId: call.callId,
      tool: toolName,
      input: boundedText(run, info.input),
    });
    // A required trace that could not record the start: the tool does not start.
    const failure = run.tracer.failure;
    if (failure !== undefined) {
      // Traced as completed: the optional sinks saw it start.
      toolFailed(call, { code: "not_run", message: `未执行：${failure}` }, true);
      return { code: "trace_failed", reason: failure };
    }
  }
  run.guard.recordToolCall();
  return undefined;
}

/** What the call came to, written back: a value or expected error, or the stop it causes. */
export function finish(
  call: CallRef,
  info: ToolCallInfo,
  settled: ToolOutcome | { readonly kind: "value"; readonly value: unknown },
): Stop | undefined | Promise<Stop | undefined> {
  const { run, tool: toolName } = call;
  if (settled.kind === "timeout") {
    if (settled.limit === "run") {
      const reason = `工具 ${toolName} 执行期间用完时间预算 ${run.limits.maxDurationMs} ms，已中止`;
      toolFailed(call, { code: "max_duration", message: reason }, true);
      return { code: "max_duration", reason };
    }
    // Like an error the tool returned: the model may try something quicker.
    const message = `工具 ${toolName} 超过 ${run.limits.toolTimeoutMs} ms 未完成，已中止（toolTimeoutMs）`;
    return toolErrored(call, { code: "timeout", message });
  }
  if (settled.kind === "aborted" || (settled.kind === "error" && isAbortError(settled.error))) {
    toolFailed(call, { code: "cancelled", message: "工具执行期间运行被取消" }, true);
    return { code: "cancelled", reason: `工具 ${toolName} 执行期间运行被取消` };
  }
  if (settled.kind === "error") {
    // A throw is unexpected by definition: expected failures are returned, not thrown.
    const message = errorText(settled.error);
    toolFailed(call, { code: "tool_error", message }, true);
    // Even a failure caused by the cancel itself is reported as the cancel.
    if (run.signal?.aborted)
      return { code: "cancelled", reason: `工具 ${toolName} 执行期间运行被取消` };
    return { code: "tool_error", reason: `工具 ${toolName} 失败：${message}` };
  }
  if (isBlockedOutcome(settled.value)) {
    // The call was refused before it did anything: the run ends here, naming the call.
    const reason = `工具 ${toolName} 被阻止：${run.redact(settled.value.reason)}`;
    toolFailed(call, { code: "permission_denied", message: reason }, true);
    return { code: "permission_denied", reason };
  }
  return record(call, info, settled.value);
}
