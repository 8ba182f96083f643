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
      // TODO(lab-28): 现在什么都算“一样”：日志里下一条是什么都照样调用模型。
      //   改成：只有下一条记录是这一步（move.step）的 model_reply 才一样；否则用 diverged(...) 说明分叉。
      void recorded;
      return { kind: "same" };
    // #endregion exercise
    case "tool_call": {
      const what = `今天的运行时要调用工具 ${move.tool}（${move.callId}）`;
      // #region exercise
      // TODO(lab-28): 现在什么都算“一样”：被改过输入的调用也照样拿记录的结果回答。
      //   改成：下一条记录必须是 tool_intent，callId 和 tool 都相同，输入用 sameInput 比较也相同；
      //   任何一样不同都是分叉（diverged(what)，输入不同时在 what 前面写明“输入不同”）。
      void what;
      void sameInput;
      return { kind: "same" };
      // #endregion exercise
    }
    case "end": {
      if (recorded?.type !== "run_finished") {
        return diverged(`今天的运行时在这里结束（${move.status}，${move.code}）`);
      }
      // #region exercise
      // TODO(lab-28): 现在只要日志在这里结束就算一样：结束得不一样（另一个 code、少走一步）也看不出来。
      //   改成：逐一比较 status、code、steps、toolCalls，把不同的字段写进 what（"steps 记录为 3，重放为 4"，
      //   多个用“；”连接），分叉在 run_finished 的 seq。
      return { kind: "same" };
      // #endregion exercise
    }
    default: {
      const unreachable: never = move;
      throw new TypeError(`unhandled move ${JSON.stringify(unreachable)}`);
    }
  }
}
