import {
  type ExtensionStop,
  HOOK_DENIED,
  type ModelResponse,
  type Provider,
  type RunExtension,
  type RunResult,
  type StopCode,
  type ToolCallDecision,
  toolError,
} from "@coding-agent/agent-core";
import type { StateEvent } from "../state/log.ts";
import type { RecordedPricing } from "../state/recorded-price.ts";
import { recordedResponse } from "../state/resume.ts";
import { createReplayCursor } from "./cursor.ts";
import { compareWithLog, describeEvent } from "./divergence.ts";

/**
 * Stops the log records at a model call that left no reply to replay: the provider failed,
 * answered something invalid, took too long, or the run was cancelled or could not keep its
 * records. Replayed as recorded. A budget, a loop or the context budget is not on this list:
 * those are today's runtime's own decisions, and a replay that copied them would hide a
 * change in them.
 */
const STOPS_AT_A_MODEL_CALL: ReadonlySet<string> = new Set<StopCode | "trace_failed">([
  "provider_error",
  "invalid_action",
  "model_timeout",
  "max_duration",
  "cancelled",
  "state_failed",
  "trace_failed",
  "extension_error",
]);

/** The pieces of one replay: the recorded model, the extensions, and the final comparison. */
export interface Replayer {
  /** Serves the recorded replies, one per step, never a network call. */
  readonly provider: Provider;
  /** First in the run: answers every tool call from the log, and each finish as the log did. */
  readonly answers: RunExtension;
  /** Last before the model call: the log must have a reply for this step. */
  readonly modelCheck: RunExtension;
  /** The workspace version after the latest replayed call (as recorded). */
  version(): string | undefined;
  /** The next recorded transition the replay has not reached yet (undefined past the end). */
  next(): StateEvent | undefined;
  /**
   * The error the call now starting threw in the recorded run (its tool's stand-in throws it),
   * once; undefined for any other call: a stand-in asked to run one is a replay that ran a tool.
   */
  recordedThrow(): string | undefined;
  /** The replay's result, or `replay_diverged` where it parts from the log. */
  settle(result: RunResult): RunResult;
}

/** How `createReplayer` judges and prices. */
export interface ReplayerOptions {
  /** Replaces the divergence rule (lesson 28's exercise). */
  readonly compare?: typeof compareWithLog;
  /** Told each reply served (a recorded fallback reply costs the fallback's price). */
  readonly pricing?: RecordedPricing;
}

/**
 * Replays a finished run's state log (lesson 28): the model is the log's replies, each tool
 * call is answered with its recorded result when today's runtime makes the same call (tool,
 * id and input), and a finish is judged as it was judged then (the finish gate looked at a
 * workspace that has moved on since). Everything else — budgets, cost, loop detection, the
 * context budget, the limits on rejections — is today's runtime deciding again. The first
 * recorded transition it does not reach, or reaches differently, ends the replay
 * `replay_diverged`, naming its seq.
 */
export function createReplayer(
  events: readonly StateEvent[],
  options: ReplayerOptions = {},
): Replayer {
  const compare = options.compare ?? compareWithLog;
  const cursor = createReplayCursor(events);
  let version: string | undefined;
  /** Set for the call being answered when it threw in the recorded run; read by its stand-in. */
  let thrown: string | undefined;
  const diverged = (seq: number | undefined, what: string): ExtensionStop => ({
    kind: "stop",
    code: "replay_diverged",
    reason: divergence(seq, what),
  });
  return {
    provider: recordedModel(cursor, options.pricing),
    answers: {
      name: "replay",
      beforeToolCall(call) {
        thrown = undefined;
        const { callId, tool } = call;
        let { input } = call;
        // Hooks never run in a replay: a PreToolUse hook's recorded decision stands in.
        const hook = recordedHook(cursor, callId);
        if (hook?.kind === "veto") return hook;
        if (hook?.kind === "input") input = hook.input as typeof input;
        const intent = cursor.peek();
        const verdict = compare({ kind: "tool_call", callId, tool, input }, intent);
        if (verdict.kind === "diverged") return diverged(verdict.seq, verdict.what);
        cursor.take();
        const answered = cursor.takeResult(call.callId);
        if (answered !== undefined) {
          version = answered.version;
          const value = answered.ok
            ? answered.value
            : toolError(answered.error?.code ?? "tool_error", answered.error?.message ?? "");
          return { kind: "answer", value };
        }
        const result = cursor.peek();
        // An intent without a result in a finished run: the call never came back.
        if (result?.type === "run_finished") {
          const ended = endedWithoutResult(call.tool, result);
          thrown = ended.thrown;
          return ended.decision;
        }
        return diverged(
          result?.seq,
          `工具调用 ${call.callId} 没有记录结果，下一条是${describeEvent(result)}`,
        );
      },
      onFinish(proposal) {
        const next = cursor.peek();
        if (next?.type === "finish_rejected" && next.step === proposal.step) {
          cursor.take();
          return { kind: "reject", reasons: next.reasons, message: next.content };
        }
        // Accepted, as the log says by ending here; if it does not, `settle` names the seq.
        return undefined;
      },
    },
    modelCheck: {
      name: "replay-model",
      beforeModelCall(request) {
        const next = cursor.peek();
        if (next?.type === "run_finished" && STOPS_AT_A_MODEL_CALL.has(next.code)) {
          const reason = String(next.reason ?? next.code);
          return { kind: "stop", code: next.code as StopCode, reason };
        }
        const verdict = compare({ kind: "model_call", step: request.step }, next);
        return verdict.kind === "same" ? undefined : diverged(verdict.seq, verdict.what);
      },
    },
    version: () => version,
    next: () => cursor.peek(),
    recordedThrow() {
      const message = thrown;
      thrown = undefined;
      return message;
    },
    settle(result) {
      if (result.code === "replay_diverged") return result;
      const verdict = compare(
        {
          kind: "end",
          status: result.status,
          code: result.code,
          steps: result.steps,
          toolCalls: result.toolCalls,
        },
        cursor.peek(),
      );
      if (verdict.kind === "same") return result;
      return divergedResult(result, divergence(verdict.seq, verdict.what));
    },
  };
}

function divergence(seq: number | undefined, what: string): string {
  return seq === undefined
    ? `重放与记录不一致（日志末尾）：${what}`
    : `重放与记录在 seq ${seq} 处不一致：${what}`;
}

function divergedResult(result: RunResult, reason: string): RunResult {
  return { ...result, status: "failed", code: "replay_diverged", reason, summary: reason };
}

type Cursor = ReturnType<typeof createReplayCursor>;

/** The model of a replay: the log's reply for each step, in order. */
function recordedModel(cursor: Cursor, pricing: RecordedPricing | undefined): Provider {
  return {
    complete(request): Promise<ModelResponse> {
      const next = cursor.peek();
      // `modelCheck` lets a call through only for the step's reply; anything else is a bug.
      if (next?.type !== "model_reply" || next.step !== request.step) {
        return Promise.reject(new Error(`重放没有第 ${request.step} 步的模型回复`));
      }
      cursor.take();
      pricing?.served(next);
      return Promise.resolve(recordedResponse(next));
    },
  };
}

/** A PreToolUse hook's recorded decision on this call, taken from the log: a veto, or the input it let through. */
function recordedHook(
  cursor: Cursor,
  callId: string,
):
  | { readonly kind: "veto"; readonly error: { readonly code: string; readonly message: string } }
  | { readonly kind: "input"; readonly input: unknown }
  | undefined {
  const hook = cursor.peek();
  if (hook?.type !== "hook_decision" || hook.event !== "PreToolUse" || hook.callId !== callId)
    return undefined;
  cursor.take();
  if (hook.decision === "veto")
    return { kind: "veto", error: { code: HOOK_DENIED, message: hook.message ?? "" } };
  return hook.input === undefined ? undefined : { kind: "input", input: hook.input };
}

/**
 * A call whose intent the finished run logged without a result: it was blocked, it threw
 * (its stand-in throws the recorded error, so the call is counted and the run ends as it
 * did), or the run stopped there.
 */
function endedWithoutResult(
  tool: string,
  result: Extract<StateEvent, { type: "run_finished" }>,
): { readonly decision: ToolCallDecision | undefined; readonly thrown?: string } {
  const reason = String(result.reason ?? "");
  if (result.code === "permission_denied") {
    // Rebuilt by the loop as "工具 <name> 被阻止：<reason>".
    const prefix = `工具 ${tool} 被阻止：`;
    const blocked = reason.startsWith(prefix) ? reason.slice(prefix.length) : reason;
    return { decision: { kind: "block", reason: blocked } };
  }
  // "工具 <name> 失败：<message>"
  const failed = `工具 ${tool} 失败：`;
  if (result.code === "tool_error" && reason.startsWith(failed))
    return { decision: undefined, thrown: reason.slice(failed.length) };
  return { decision: { kind: "stop", code: result.code as StopCode, reason } };
}
