import { canonicalJson } from "@coding-agent/agent-core";
import {
  describeEvent,
  type ReplayMove,
  type ReplayVerdict,
  type StateEvent,
} from "@coding-agent/cli";

/** 两个输入是否相同：按规范 JSON（键排好序）比较，键的顺序不算差别。 */
const sameInput = (a: unknown, b: unknown) =>
  canonicalJson(a as Parameters<typeof canonicalJson>[0]) ===
  canonicalJson(b as Parameters<typeof canonicalJson>[0]);

/**
 * 重放的分叉规则：今天的运行时下一步要做的事（move），必须就是日志里的下一条记录（recorded）。
 * 一样就回答 { kind: "same" }；不一样就回答 { kind: "diverged", seq, what }：
 * seq 是那条记录的 seq（日志已经结束时为 undefined），what 用中文说清记录是什么、今天要做什么。
 */
export function compareWithLog(move: ReplayMove, recorded: StateEvent | undefined): ReplayVerdict {
  const diverged = (what: string): ReplayVerdict => ({
    kind: "diverged",
    seq: recorded?.seq,
    what: `记录是${describeEvent(recorded)}，${what}`,
  });
  switch (move.kind) {
    case "model_call":
      // #region exercise
      if (recorded?.type === "model_reply" && recorded.step === move.step) return { kind: "same" };
      return diverged(`今天的运行时要调用模型（第 ${move.step} 步）`);
    // #endregion exercise
    case "tool_call": {
      const what = `今天的运行时要调用工具 ${move.tool}（${move.callId}）`;
      // #region exercise
      if (recorded?.type !== "tool_intent") return diverged(what);
      if (recorded.callId !== move.callId || recorded.tool !== move.tool) return diverged(what);
      if (!sameInput(recorded.input, move.input)) return diverged(`输入不同；${what}`);
      return { kind: "same" };
      // #endregion exercise
    }
    case "end": {
      if (recorded?.type !== "run_finished") {
        return diverged(`今天的运行时在这里结束（${move.status}，${move.code}）`);
      }
      // #region exercise
      const fields = [
        ["status", recorded.status, move.status],
        ["code", recorded.code, move.code],
        ["steps", recorded.steps, move.steps],
        ["toolCalls", recorded.toolCalls, move.toolCalls],
      ] as const;
      const differences = fields
        .filter(([, then, now]) => then !== now)
        .map(([field, then, now]) => `${field} 记录为 ${String(then)}，重放为 ${String(now)}`);
      if (differences.length === 0) return { kind: "same" };
      return { kind: "diverged", seq: recorded.seq, what: differences.join("；") };
      // #endregion exercise
    }
    default: {
      const unreachable: never = move;
      throw new TypeError(`unhandled move ${JSON.stringify(unreachable)}`);
    }
  }
}
