import { canonicalJson, type RunStatus, type StopCode } from "@coding-agent/agent-core";
import type { StateEvent } from "../state/log.ts";

/** What today's runtime is about to do (or has done, at the end) in a replay. */
export type ReplayMove =
  /** It asks the model for step `step`. */
  | { readonly kind: "model_call"; readonly step: number }
  /** It calls a tool (validated input, the call id the loop gave it). */
  | {
      readonly kind: "tool_call";
      readonly callId: string;
      readonly tool: string;
      readonly input: unknown;
    }
  /** It ended the run. */
  | {
      readonly kind: "end";
      readonly status: RunStatus;
      readonly code: StopCode;
      readonly steps: number;
      readonly toolCalls: number;
    };

/** Does the log's next transition say the same thing? If not, where and how it differs. */
export type ReplayVerdict =
  | { readonly kind: "same" }
  | {
      readonly kind: "diverged";
      /** The seq of the recorded transition that differs (undefined: the log has ended). */
      readonly seq: number | undefined;
      /** What the log has and what today's runtime does, for the reason. */
      readonly what: string;
    };

/**
 * The divergence rule of a replay (docs/contracts.md §7, lesson 28): the runtime's next move must be
 * the log's next transition. A model call needs the reply of that very step; a tool call,
 * an intent of the same call id and tool with the same input (compared as canonical JSON,
 * so the order of keys does not matter); the end, a `run_finished` with the same status,
 * code, steps and tool calls.
 */
export function compareWithLog(move: ReplayMove, recorded: StateEvent | undefined): ReplayVerdict {
  const diverged = (what: string): ReplayVerdict => ({
    kind: "diverged",
    seq: recorded?.seq,
    what: `记录是${describeEvent(recorded)}，${what}`,
  });
  switch (move.kind) {
    case "model_call":
      if (recorded?.type === "model_reply" && recorded.step === move.step) return SAME;
      return diverged(`今天的运行时要调用模型（第 ${move.step} 步）`);
    case "tool_call": {
      const what = `今天的运行时要调用工具 ${move.tool}（${move.callId}，输入 ${jsonOf(move.input)}）`;
      if (recorded?.type !== "tool_intent") return diverged(what);
      if (recorded.callId !== move.callId || recorded.tool !== move.tool) return diverged(what);
      if (jsonOf(recorded.input) !== jsonOf(move.input)) {
        return diverged(`输入是 ${jsonOf(recorded.input)}；${what}`);
      }
      return SAME;
    }
    case "end": {
      if (recorded?.type !== "run_finished") {
        return diverged(`今天的运行时在这里结束（${move.status}，${move.code}）`);
      }
      const fields = [
        ["status", recorded.status, move.status],
        ["code", recorded.code, move.code],
        ["steps", recorded.steps, move.steps],
        ["toolCalls", recorded.toolCalls, move.toolCalls],
      ] as const;
      const differences = fields
        .filter(([, then, now]) => then !== now)
        .map(([field, then, now]) => `${field} 记录为 ${String(then)}，重放为 ${String(now)}`);
      if (differences.length === 0) return SAME;
      return { kind: "diverged", seq: recorded.seq, what: differences.join("；") };
    }
    default: {
      const unreachable: never = move;
      throw new TypeError(`unhandled move ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Canonical JSON (sorted keys) of an input, as the action fingerprints compare them. */
function jsonOf(value: unknown): string {
  return canonicalJson(value as Parameters<typeof canonicalJson>[0]);
}

const SAME: ReplayVerdict = Object.freeze({ kind: "same" });

/** A recorded transition as a person reads it in a divergence reason. */
export function describeEvent(event: StateEvent | undefined): string {
  if (event === undefined) return "日志已经结束";
  switch (event.type) {
    case "model_reply":
      return `第 ${event.step} 步的模型回复`;
    case "tool_intent":
      return `工具调用 ${event.tool}（${event.callId}）`;
    case "tool_result":
      return `工具结果（${event.callId}）`;
    case "finish_rejected":
      return `第 ${event.step} 步的完成被拒绝`;
    case "run_finished":
      return `运行结束（${event.status}，${event.code}）`;
    case "hook_decision":
      return `${event.event} hook 的决定（${event.decision}${event.callId === undefined ? "" : `，${event.callId}`}）`;
    case "subagent_finished":
      return `子 Agent #${event.index} 结束（${event.status}，${event.code}）`;
    case "run_started":
    case "resumed":
      return event.type;
    default: {
      const unreachable: never = event;
      throw new TypeError(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}
