import { deepFreeze } from "./deep-freeze.ts";
import { errorText, isAbortError } from "./errors.ts";
import type {
  Compaction,
  FinishDecision,
  FinishProposal,
  ModelReplyInfo,
  RunExtension,
  ToolCallDecision,
  ToolCallInfo,
  ToolCallResult,
} from "./extension.ts";
import { isHistoryView, type Message } from "./messages.ts";
import { createModelRequest, isImmutableRequest, type ModelRequest } from "./provider.ts";
import type { Run, Stop } from "./run-state.ts";
import { type CallOutcome, timedCall } from "./timed-call.ts";
import { asToolError } from "./tool-error.ts";
import type { ToolInput, ToolInputCheck } from "./tools.ts";
import {
  type CompactedResult,
  type StopCode,
  statusOf,
  type TraceEvent,
  type TraceSink,
} from "./trace.ts";

/**
 * How the loop asks its extensions at each point (see `RunExtension` for the order and
 * the rules). A point nobody implements costs nothing: the loop checks the chain first.
 */

/**
 * Before a model call: the request to send (rewritten or not) with the compactions that
 * made it (for the trace), or a stop.
 */
export async function beforeModelCall(
  run: Run,
  request: ModelRequest,
): Promise<
  | { readonly request: ModelRequest; readonly compactions: readonly Compaction[] }
  | { readonly stop: Stop }
> {
  let current = request;
  const compactions: Compaction[] = [];
  for (const extension of run.extensions.beforeModelCall) {
    const outcome = await ask(run, (signal) => extension.beforeModelCall?.(current, signal));
    const answer = decided(run, extension, "beforeModelCall", outcome, ["stop", "rewrite"]);
    if (answer === undefined) continue;
    if ("stop" in answer) return answer;
    const rewritten = immutableRequest(
      (answer.decision as { request?: unknown }).request,
      request.step,
    );
    if (rewritten === undefined) return { stop: invalid(extension, "beforeModelCall") };
    const { compaction } = answer.decision as { compaction?: unknown };
    if (compaction !== undefined) {
      if (!isCompaction(compaction)) return { stop: invalid(extension, "beforeModelCall") };
      compactions.push(compaction);
    }
    current = rewritten;
  }
  return { request: current, compactions };
}

/** After a valid reply: a stop, or undefined to act on it. */
export async function afterReply(run: Run, reply: ModelReplyInfo): Promise<Stop | undefined> {
  for (const extension of run.extensions.afterReply) {
    const outcome = await ask(run, (signal) => extension.afterReply?.(reply, signal));
    const answer = decided(run, extension, "afterReply", outcome, ["stop"]);
    if (answer !== undefined) return "stop" in answer ? answer.stop : undefined;
  }
  return undefined;
}

/**
 * Before a tool call: the first decision other than "run" (or "rewrite"), or how asking
 * failed (the caller words it, since the call's own result must say it was not run), with
 * the call as the later extensions and the tool see it. A rewrite is validated by
 * `validate` (the tool's schema) and passed on: each later extension sees the new input.
 */
export async function beforeToolCall(
  run: Run,
  call: ToolCallInfo,
  validate: (input: ToolInput) => ToolInputCheck,
): Promise<{
  readonly decision:
    | Exclude<ToolCallDecision, { kind: "rewrite" }>
    | Exclude<CallOutcome<never>, { kind: "value" }>;
  readonly call: ToolCallInfo;
}> {
  let current = call;
  for (const extension of run.extensions.beforeToolCall) {
    const outcome = await ask(run, (signal) => extension.beforeToolCall?.(current, signal));
    if (outcome.kind !== "value") return { decision: outcome, call: current };
    const decision = outcome.value;
    if (decision === undefined || decision === null || decision.kind === "run") continue;
    if (!isToolCallDecision(decision)) {
      const error = new TypeError(`扩展 ${extension.name} 的 beforeToolCall 返回了无效的决定`);
      return { decision: { kind: "error", error }, call: current };
    }
    if (decision.kind !== "rewrite") return { decision, call: current };
    const checked = validate(decision.input);
    if (!checked.ok) {
      const message = `扩展 ${extension.name} 改写后的输入无效：${checked.error.message}`;
      const error = { ...checked.error, message };
      return { decision: { kind: "veto", error }, call: current };
    }
    // Frozen like the model's input: the hook keeps no handle on what the tool gets.
    current = { ...current, input: deepFreeze(checked.input) };
  }
  return { decision: { kind: "run" }, call: current };
}

/** After a tool call: the value the model sees instead (if any), or a stop. */
export async function afterToolCall(
  run: Run,
  call: ToolCallInfo,
  result: ToolCallResult,
): Promise<{ readonly value: unknown } | { readonly stop: Stop } | undefined> {
  let replaced: { readonly value: unknown } | undefined;
  let current = result;
  for (const extension of run.extensions.afterToolCall) {
    const outcome = await ask(run, (signal) => extension.afterToolCall?.(call, current, signal));
    const answer = decided(run, extension, "afterToolCall", outcome, ["replace"]);
    if (answer === undefined) continue;
    if ("stop" in answer) return answer;
    const { value } = answer.decision as { value?: unknown };
    replaced = { value };
    // A replacement that is an error (`toolError(...)`, a hook's veto) is an error to the
    // next extension too: the state log records it as one, as the model will see it.
    const error = asToolError(value);
    current = error === undefined ? { ok: true, value } : { ok: false, error };
  }
  return replaced;
}

/** A finish proposal: accepted (undefined), rejected, or a stop. */
export async function onFinish(
  run: Run,
  proposal: FinishProposal,
): Promise<Extract<FinishDecision, { kind: "reject" }> | { readonly stop: Stop } | undefined> {
  for (const extension of run.extensions.onFinish) {
    const outcome = await ask(run, (signal) => extension.onFinish?.(proposal, signal));
    const answer = decided(run, extension, "onFinish", outcome, ["accept", "reject"]);
    if (answer === undefined) continue;
    if ("stop" in answer) return answer;
    if (answer.decision.kind === "accept") continue;
    const reject = answer.decision as Extract<FinishDecision, { kind: "reject" }>;
    if (!isRejection(reject)) return { stop: invalid(extension, "onFinish") };
    return reject;
  }
  return undefined;
}

/**
 * One sink for every extension's `onTrace` and the caller's own sink, in that order, or
 * undefined when nobody listens (the tracer then builds no event at all). Each listener
 * is isolated: one that throws or rejects does not keep the others from the event.
 */
export function traceListeners(
  extensions: readonly RunExtension[],
  sink: TraceSink | undefined,
): TraceSink | undefined {
  const listeners: TraceSink[] = [];
  for (const extension of extensions) {
    const onTrace = extension.onTrace;
    if (onTrace !== undefined) listeners.push((event) => onTrace.call(extension, event));
  }
  if (sink !== undefined) listeners.push(sink);
  if (listeners.length <= 1) return listeners[0];
  return (event: TraceEvent) => {
    for (const listener of listeners) {
      try {
        Promise.resolve(listener(event)).catch(ignore);
      } catch {
        // A listener that throws never changes the run, nor what the others receive.
      }
    }
  };
}

function ignore(): void {}

/** Calls one point under the run's deadline and cancel signal (no time limit of its own). */
function ask<T>(run: Run, call: (signal: AbortSignal) => T | PromiseLike<T>) {
  return timedCall(run, call, undefined);
}

/**
 * What a point answered: a decision of one of `kinds`, or a stop (the extension asked
 * for one, or failed: threw, ran out of the run's time, was cancelled, or answered
 * something it may not); undefined to go on.
 */
function decided(
  run: Run,
  extension: RunExtension,
  point: string,
  outcome: CallOutcome<unknown>,
  kinds: readonly string[],
): { readonly decision: { readonly kind: string } } | { readonly stop: Stop } | undefined {
  const where = `扩展 ${extension.name} 的 ${point}`;
  if (outcome.kind === "timeout") {
    const reason = `${where} 用完时间预算 ${run.limits.maxDurationMs} ms`;
    return { stop: { code: "max_duration", reason } };
  }
  // An outcome "aborted" comes only from the run's signal, which this also reads.
  if (run.signal?.aborted || (outcome.kind === "error" && isAbortError(outcome.error))) {
    return { stop: { code: "cancelled", reason: `${where} 期间运行被取消` } };
  }
  if (outcome.kind === "error") {
    return {
      stop: { code: "extension_error", reason: `${where} 出错：${errorText(outcome.error)}` },
    };
  }
  const { value } = outcome as { readonly value: unknown };
  if (value === undefined || value === null) return undefined;
  const kind = (value as { kind?: unknown }).kind;
  if (!kinds.includes(kind as string)) return { stop: invalid(extension, point) };
  if (kind !== "stop") return { decision: value as { readonly kind: string } };
  const { code, reason } = value as { code?: unknown; reason?: unknown };
  if (!isStopCode(code) || typeof reason !== "string") return { stop: invalid(extension, point) };
  return { stop: { code, reason } };
}

function invalid(extension: RunExtension, point: string): Stop {
  return {
    code: "extension_error",
    reason: `扩展 ${extension.name} 的 ${point} 返回了无效的决定`,
  };
}

function isStopCode(code: unknown): code is StopCode {
  try {
    statusOf(code as StopCode);
    return true;
  } catch {
    return false;
  }
}

function isToolCallDecision(decision: { readonly kind?: unknown }): decision is ToolCallDecision {
  switch (decision.kind) {
    case "veto": {
      const error = (decision as { error?: { code?: unknown; message?: unknown } }).error;
      return typeof error?.code === "string" && typeof error.message === "string";
    }
    case "block":
      return typeof (decision as { reason?: unknown }).reason === "string";
    case "answer":
      return "value" in decision;
    case "rewrite": {
      const { input } = decision as { input?: unknown };
      return typeof input === "object" && input !== null && !Array.isArray(input);
    }
    case "stop": {
      const { code, reason } = decision as { code?: unknown; reason?: unknown };
      return isStopCode(code) && typeof reason === "string";
    }
    default:
      return false;
  }
}

function isCompaction(value: unknown): value is Compaction {
  const compaction = value as Partial<Compaction> | null;
  return (
    typeof compaction === "object" &&
    compaction !== null &&
    Number.isFinite(compaction.estimatedTokens) &&
    Number.isFinite(compaction.compactedTokens) &&
    Number.isFinite(compaction.maxContextTokens) &&
    Number.isInteger(compaction.totalCompacted) &&
    Array.isArray(compaction.results) &&
    compaction.results.every(
      (result: Partial<CompactedResult> | null) =>
        typeof result?.callId === "string" &&
        typeof result.tool === "string" &&
        typeof result.artifactId === "string",
    )
  );
}

function isRejection(decision: Extract<FinishDecision, { kind: "reject" }>): boolean {
  return (
    Array.isArray(decision.reasons) &&
    decision.reasons.every((reason) => typeof reason === "string") &&
    typeof decision.message === "string"
  );
}

/**
 * A rewritten request made immutable, as the loop's own is: a provider may keep it, and
 * must not be able to change what the next extension or step sees. Its step stays the
 * run's. Undefined for something that is not a request.
 */
function immutableRequest(value: unknown, step: number): ModelRequest | undefined {
  const request = value as ModelRequest;
  if (isImmutableRequest(request) && request.step === step) return request;
  try {
    // A text, a number or null has no such parts (null throws, and is caught below).
    const { task, tools, system } = request;
    const messages: unknown = request.messages;
    if (!Array.isArray(messages) || !Array.isArray(tools) || typeof task.goal !== "string") {
      return undefined;
    }
    if (system !== undefined && typeof system !== "string") return undefined;
    return createModelRequest({
      ...(system === undefined ? {} : { system }),
      task: deepFreeze(task),
      messages: isHistoryView(messages)
        ? messages
        : Object.freeze((messages as Message[]).map((message) => deepFreeze(message))),
      step,
      tools: deepFreeze(tools),
    });
  } catch {
    // A Proxy or a getter that throws: not a request.
    return undefined;
  }
}
