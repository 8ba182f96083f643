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
  const tests = run.evidence?.tests ?? null;
  const vouched =
    tests !== null &&
    tests.failed === 0 &&
    tests.passed >= 1 &&
    tests.version === run.evidence?.endVersion;
  if (!vouched) {
    const why =
      tests === null
        ? "结果里没有测试证据（完成验证门没有打开？）"
        : `门记下的测试：通过 ${tests.passed}，失败 ${tests.failed}，版本 ${tests.version}，最终版本 ${run.evidence?.endVersion}`;
    reasons.push(reason("finish_gate", `完成没有经过完成验证门：${why}`));
  }
  // #endregion exercise
  return reasons;
}

/** 状态日志里最后一次 run_tests 通过，并且在最后一次改动工作区之后。 */
function testReasons(state: readonly StateEvent[]): CapstoneReason[] {
  // #region exercise
  const tools = new Map<string, string>();
  let version: string | undefined;
  let lastChange = 0;
  let lastTests: Extract<StateEvent, { type: "tool_result" }> | undefined;
  for (const event of state) {
    if (event.type === "run_started") version = event.startVersion;
    if (event.type === "tool_intent") tools.set(event.callId, event.tool);
    if (event.type !== "tool_result") continue;
    if (event.version !== version) {
      lastChange = event.seq;
      version = event.version;
    }
    if (tools.get(event.callId) === "run_tests") lastTests = event;
  }
  if (lastTests === undefined) {
    return [reason("tests_after_change", "状态日志里没有一次 run_tests：修复没有被测试过")];
  }
  if (lastTests.seq < lastChange) {
    return [
      reason(
        "tests_after_change",
        `最后一次 run_tests（seq ${lastTests.seq}）早于最后一次改动（seq ${lastChange}）：测过的不是交付的代码`,
      ),
    ];
  }
  if (!passing(lastTests)) {
    return [reason("tests_after_change", "最后一次 run_tests 没有通过")];
  }
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
  const reasons: CapstoneReason[] = [];
  const check = checkTrace(trace);
  if (!check.ok) reasons.push(reason("trace", `轨迹不完整：${check.message}`));
  const other = trace.find((event) => event.runId !== runId);
  if (other !== undefined) {
    reasons.push(
      reason("trace", `轨迹属于另一次运行：第 ${other.seq} 个事件的 runId 是 ${other.runId}`),
    );
  }
  return reasons;
  // #endregion exercise
}

const CHANGE_WORDS = { added: "新增", modified: "修改", removed: "删除" } as const;

/** 补丁里的每个文件都在任务允许的路径里：删掉的、新增的文件也算。 */
function scopeReasons(
  patch: readonly PatchEntry[],
  allowPaths: readonly string[],
): CapstoneReason[] {
  // #region exercise
  const allowed = createPathAllowance(allowPaths);
  return patch
    .filter((entry) => !allowed(entry.path))
    .map((entry) =>
      reason(
        "scope",
        `${CHANGE_WORDS[entry.change]}了 ${entry.path}，不在允许修改的路径（${allowPaths.join("、")}）里`,
      ),
    );
  // #endregion exercise
}

/** 评测报告里这个任务通过，并且对照基线没有任何回归（别的任务也算）。 */
function evalReasons(report: EvalReport, taskId: string): CapstoneReason[] {
  // #region exercise
  const reasons: CapstoneReason[] = [];
  const row = report.tasks.find((task) => task.id === taskId);
  if (row === undefined) reasons.push(reason("eval", `评测报告里没有任务 ${taskId}`));
  else if (!row.passed) {
    const failed = Object.entries(row.graders)
      .filter(([, verdict]) => !verdict.pass)
      .map(([name]) => name);
    reasons.push(reason("eval", `评测里任务 ${taskId} 没有通过：${failed.join("、")}`));
  }
  if (report.regressions.length > 0) {
    reasons.push(reason("eval", `评测对照基线有回归：${report.regressions.join("、")}`));
  }
  return reasons;
  // #endregion exercise
}
