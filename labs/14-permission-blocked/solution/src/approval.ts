/**
 * 第 14 课：问过之后怎么办。
 *
 * 需要许可的调用，总项目的许可闸门（`@coding-agent/tools` 的 `createApprovalGate`，
 * 见 packages/tools/src/approval-gate.ts）先问再做：按 --approval 的模式分流、用
 * `requestApproval` 询问（超时、异常、看不懂的应答都按拒绝处理）、记住允许过什么、
 * 直接调用 execute 也照样把关。它把询问的结果交给 `decideApproval`，这就是本课的练习：
 *
 * - 拒绝：返回 `blockRun(原因)`，运行以 `blocked` 结束，这个调用从未执行；
 * - 允许：返回 `"allow_run"`（本次运行里这个程序都不再问）或 `"allow_once"`（只这一次）。
 */
import { blockRun } from "@coding-agent/agent-core";
import type { ApprovalOutcome, ApprovalVerdict, GatedCall } from "@coding-agent/tools";

/**
 * 把询问的结果变成闸门要做的事。`call.request.reason` 说为什么需要许可，
 * `call.undone` 说被拒绝时哪个调用没有执行（例如 `["touch","a.txt"] 没有执行`）。
 */
export function decideApproval(outcome: ApprovalOutcome, call: GatedCall): ApprovalVerdict {
  // #region exercise
  if (!outcome.allowed)
    return blockRun(`${call.request.reason}；${outcome.reason}：${call.undone}`);
  return outcome.forRun ? "allow_run" : "allow_once";
  // #endregion exercise
}
