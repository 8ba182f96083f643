import { checkTrace } from "@coding-agent/agent-core";
import type { StateEvent, TraceLine } from "@coding-agent/cli";
import type { EvalReport } from "@coding-agent/eval";
import { createPathAllowance } from "@coding-agent/tools";
import type {
  CapstoneCheck,
  CapstoneEvidence,
  CapstoneReason,
  CapstoneVerdict,
  PatchEntry,
  RunJson,
} from "./evidence.ts";

const reason = (check: CapstoneCheck, message: string): CapstoneReason => ({ check, message });

/**
 * 结业验收：不听 Agent 怎么说，只看它留下的证据。运行经过完成验证门完成，最后一次
 * 改动之后有一次通过的 run_tests，轨迹完整且属于这次运行，补丁只碰允许的路径，评测
 * 报告里这个任务通过且对照基线没有回归。每一条不满足的都写进 reasons。
 */
export function acceptCapstone(evidence: CapstoneEvidence): CapstoneVerdict {
  const reasons = [
    ...finishReasons(evidence.run),
    ...testReasons(evidence.state),
    ...traceReasons(evidence.trace, evidence.run.runId),
    ...scopeReasons(evidence.patch, evidence.allowPaths),
    ...evalReasons(evidence.eval, evidence.taskId),
  ];
  return reasons.length === 0 ? { accepted: true, reasons: [] } : { accepted: false, reasons };
}

/** 运行以完成结束，而且完成验证门认可了它：门的测试证据通过，且就是最终工作区的版本。 */
function finishReasons(run: RunJson): CapstoneReason[] {
  const reasons: CapstoneReason[] = [];
  if (run.status !== "completed" || run.code !== "finished") {
    reasons.push(reason("finished", `运行没有完成：status ${run.status}，code ${run.code}`));
  }
  // #region exercise
  // TODO(lab-40): 现在只看 status：模型说完成就算完成。改成：还要完成验证门认可了它——
  //   run.evidence.tests 不是 null，failed 为 0、passed 至少 1，而且它的 version 就是
  //   run.evidence.endVersion（测试之后工作区没再变）。不满足就加一条 check 为 finish_gate 的理由。
  // #endregion exercise
  return reasons;
}

/** 状态日志里最后一次 run_tests 通过，并且在最后一次改动工作区之后。 */
function testReasons(state: readonly StateEvent[]): CapstoneReason[] {
  // #region exercise
  // TODO(lab-40): 现在不看状态日志。改成：按 seq 顺序走一遍 state——
  //   tool_intent 记下 callId → tool；tool_result 的 version 和前一个不同（第一个和
  //   run_started 的 startVersion 比）就是一次改动，记下它的 seq；tool 是 run_tests 的
  //   tool_result 记下最后一个。没有 run_tests、它早于最后一次改动、或者它没有通过（用下面的
  //   passing），各是一条 check 为 tests_after_change 的理由。
  void passing;
  void state;
  return [];
  // #endregion exercise
}

/** run_tests 的结果：成功返回，没有失败，至少一个通过。 */
function passing(result: Extract<StateEvent, { type: "tool_result" }>): boolean {
  const value = result.value as { passed?: unknown; failed?: unknown } | undefined;
  return result.ok && value?.failed === 0 && typeof value.passed === "number" && value.passed >= 1;
}

/** 轨迹完整（第 26 课的 checkTrace），而且是这次运行的轨迹。 */
function traceReasons(trace: readonly TraceLine[], runId: string): CapstoneReason[] {
  // #region exercise
  // TODO(lab-40): 现在不看轨迹。改成：用 agent-core 的 checkTrace 检查它完整（seq 没有缺口、
  //   run_started 开头、run_finished 结尾……），不完整就把它的 message 写进理由；再检查每个
  //   事件的 runId 都是这次运行的。check 都是 trace。
  void checkTrace;
  void trace;
  void runId;
  return [];
  // #endregion exercise
}

const CHANGE_WORDS = { added: "新增", modified: "修改", removed: "删除" } as const;

/** 补丁里的每个文件都在任务允许的路径里：删掉的、新增的文件也算。 */
function scopeReasons(
  patch: readonly PatchEntry[],
  allowPaths: readonly string[],
): CapstoneReason[] {
  // #region exercise
  // TODO(lab-40): 现在不看补丁。改成：用 createPathAllowance(allowPaths) 判断补丁里的每个文件，
  //   不在允许范围里的（新增、修改、删除都算）各是一条 check 为 scope 的理由，写出路径
  //   和 CHANGE_WORDS 里的动作。
  void createPathAllowance;
  void CHANGE_WORDS;
  void patch;
  void allowPaths;
  return [];
  // #endregion exercise
}

/** 评测报告里这个任务通过，并且对照基线没有任何回归（别的任务也算）。 */
function evalReasons(report: EvalReport, taskId: string): CapstoneReason[] {
  // #region exercise
  // TODO(lab-40): 现在不看评测报告。改成：报告里找到 taskId 那一行，找不到或没有通过是一条
  //   理由（写出没通过的评分器）；report.regressions 不是空的也是一条理由，写出回归的任务。
  //   check 都是 eval。
  void report;
  void taskId;
  return [];
  // #endregion exercise
}
