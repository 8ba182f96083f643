import { UnknownRunStatusError } from "./errors.ts";
import type { RunStatus } from "./run-result.ts";

/** CLI 看不懂的命令行（缺少目标、参数写错）对应的退出码。 */
export const USAGE_EXIT_CODE = 2;

/**
 * shell、CI 任务或父进程看到的每种运行状态的退出码：
 * completed 0、failed 1、budget_exceeded 3、blocked 4、cancelled 130。
 */
export function exitCodeFor(status: RunStatus): number {
  // #region exercise
  // TODO(lab-02): 现在除了 completed，其余状态都报 1，调用方分不清“失败”“预算耗尽”“被阻止”和“取消”。
  // 让每种状态得到约定的退出码：completed 0、failed 1、budget_exceeded 3、blocked 4、cancelled 130；
  // 并且以后新增一种状态却忘了给它退出码时，typecheck 会报错（末尾的 never 检查要继续起作用）。
  if (status === "completed") return 0;
  if (
    status === "failed" ||
    status === "budget_exceeded" ||
    status === "blocked" ||
    status === "cancelled"
  ) {
    return 1;
  }
  const unknown: never = status;
  throw new UnknownRunStatusError(unknown);
  // #endregion exercise
}
