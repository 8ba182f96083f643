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
  // TODO(lab-40): 现在只看 status：模型说完成就算完成。
  //   目标：完成验证门认可了这次完成——它记下的测试（run.evidence）通过了，测的正是交付的那个版本。
  //   约束：门关着、没有记下测试，也不算认可；不满足时加一条 check 为 finish_gate 的理由。
  // #endregion exercise
  return reasons;
}

/** 状态日志里最后一次 run_tests 通过，并且在最后一次改动工作区之后。 */
function testReasons(state: readonly StateEvent[]): CapstoneReason[] {
  // #region exercise
  // TODO(lab-40): 现在不看状态日志。
  //   目标：从状态日志确认，最后一次 run_tests 通过了（用下面的 passing），而且在最后一次改动之后。
  //   约束：run_command 也能改文件，所以“改动”看工作区的版本，不看工具名；没测、测早了、
  //   没通过，各是一条 check 为 tests_after_change 的理由。
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
  // TODO(lab-40): 现在不看轨迹。
  //   目标：轨迹完整，而且确实是这次运行（runId）留下的。
  //   约束：完整与否不自己数，交给 agent-core 已有的检查；理由写出它说了什么，check 都是 trace。
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
  // TODO(lab-40): 现在不看补丁。
  //   目标：补丁只碰任务允许的路径（范围用 createPathAllowance 判断）。
  //   约束：新增、修改、删除都是改动；每个越界的文件一条 check 为 scope 的理由，写出路径和
  //   CHANGE_WORDS 里的动作。
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
  // TODO(lab-40): 现在不看评测报告。
  //   目标：评测里结业任务（taskId）通过了，而且对照基线没有任何回归。
  //   约束：理由要说清是哪个评分器没通过、哪些任务回归了；check 都是 eval。
  void report;
  void taskId;
  return [];
  // #endregion exercise
}
