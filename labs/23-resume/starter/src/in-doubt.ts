import { READ_ONLY_TOOLS } from "@coding-agent/agent-core";
import type { InDoubtDecision, PredictedFile } from "@coding-agent/cli";

/** 只读的工具（和重新跑一遍测试）：中断时不管做没做，再做一次都不会改变什么。 */
const RERUNNABLE = new Set([...READ_ONLY_TOOLS, "run_tests"]);
/** 编辑工具：意图里记下了它要改的每个文件改之前、改之后的 hash。 */
const EDIT_TOOLS = new Set(["edit_file", "write_file", "apply_edits"]);

/**
 * 崩溃时悬而未决的一次调用（意图已落盘、结果还没有），恢复时怎么处理：
 * "run" 再执行一次；"applied" 不执行，记为已经生效；"stale" 不执行，告诉模型文件已变；
 * "interrupted" 不执行，告诉模型它可能做了也可能没做。
 * `files` 是编辑意图里记下的预测（没有预测时为 undefined），`now` 是这些文件现在的 hash
 * （顺序相同；文件不存在为 null）。
 */
export function decideInDoubt(
  tool: string,
  files: readonly PredictedFile[] | undefined,
  now: readonly (string | null)[],
): InDoubtDecision {
  // #region exercise
  // TODO(lab-23): 现在什么都再执行一次：命令会跑第二遍，已经写进文件的编辑会再写一遍。
  //   改成按工具的种类决定：只读的工具再执行；命令和不认识的工具绝不再执行；
  //   编辑工具看它要改的每个文件现在的 hash：全都已经是改之后的样子，还是全都仍是改之前的样子，
  //   或者两样都不是（包括一部分改了、一部分没改）。没有预测的编辑在规划时就被拒绝了，什么也没写。
  void tool;
  void RERUNNABLE;
  void EDIT_TOOLS;
  void files;
  void now;
  return "run";
  // #endregion exercise
}
