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
  // 逐个列出状态；default 分支把 status 赋给 never，新增状态却忘了映射时 typecheck 会报错。
  switch (status) {
    case "completed":
      return 0;
    case "failed":
      return 1;
    case "budget_exceeded":
      return 3;
    case "blocked":
      return 4;
    case "cancelled":
      // 128 + 2（SIGINT 的编号）：shell 对被 Ctrl-C 结束的进程也报告 130。
      return 130;
    default: {
      const unknown: never = status;
      throw new UnknownRunStatusError(unknown);
    }
  }
  // #endregion exercise
}
