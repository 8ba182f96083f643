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
  // TODO(lab-21): 现在模型说完成就算完成。按顺序补上四个拒绝原因：
  //   - 从没跑过测试；
  //   - 跑过，但跑的时候工作区版本和现在不同（之后又改过文件，结果过期）；
  //   - 跑的就是现在这个版本，但有失败，或者一个通过的都没有；
  //   - 有改动的文件不在允许的路径内（和测试的原因可以同时出现）。
  //   每个原因往 lines 里放一行中文，告诉模型缺什么、下一步做什么。
  void evidence;
  void isAllowed;
  // #endregion exercise
  return { reasons, message: lines.join("\n") };
}
