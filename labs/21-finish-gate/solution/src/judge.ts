import type {
  FinishEvidence,
  FinishRejectionReason,
  FinishVerdict,
} from "@coding-agent/agent-core";

/**
 * 判断模型提出的 finish 能不能被接受。证据 `evidence` 来自真实的工作区：
 * `tests` 是最近一次 run_tests 的结果和它运行时的工作区版本（从没跑过为 null；
 * 读不出测试个数时 passed、failed、skipped 都是 null，只有测试命令的退出码 exitCode），
 * `endVersion` 是工作区现在的版本，`changedFiles` 是运行开始以来真正变了的文件。
 * `isAllowed(file)` 说一个文件是否在 --allow-path 之内。
 * 返回拒绝的原因（没有原因就是接受），以及告诉模型还缺什么的中文说明，每个原因一行。
 */
export function judgeFinish(
  evidence: FinishEvidence,
  isAllowed: (file: string) => boolean,
): FinishVerdict {
  const reasons: FinishRejectionReason[] = [];
  const lines: string[] = [];
  // #region exercise
  const { tests } = evidence;
  if (tests === null) {
    reasons.push("no_test_evidence");
    lines.push("还没有运行过测试：先调用 run_tests，测试通过后再提出完成。");
  } else if (tests.version !== evidence.endVersion) {
    reasons.push("stale_test_evidence");
    lines.push("上次测试之后工作区又被修改过，那次结果已经过期：请重新运行 run_tests。");
  } else if (tests.passed === null) {
    if (tests.exitCode !== 0) {
      reasons.push("tests_failing");
      lines.push(`最近一次测试命令没有以 0 退出（退出码 ${tests.exitCode}）。`);
    }
  } else if (tests.failed > 0 || tests.passed < 1) {
    reasons.push("tests_failing");
    lines.push(`最近一次测试没有全部通过（通过 ${tests.passed}，失败 ${tests.failed}）。`);
  }
  const outside = evidence.changedFiles.filter((file) => !isAllowed(file));
  if (outside.length > 0) {
    reasons.push("changes_outside_allowed_paths");
    lines.push(`这些文件的改动不在允许的路径内：${outside.join("、")}。`);
  }
  // #endregion exercise
  return { reasons, message: lines.join("\n") };
}
