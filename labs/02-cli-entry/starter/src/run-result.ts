/**
 * 一次运行怎样结束。每次运行都恰好以其中一种结束；CLI 把它变成退出码，Trace 记录它，之后的恢复层据
 * 此决定要不要重试。
 */
export type RunStatus = "completed" | "failed" | "budget_exceeded" | "blocked" | "cancelled";

/** 运行结束时 Runtime 交还给 CLI 的东西。 */
export interface RunResult {
  readonly status: RunStatus;
  /** 一行人能读懂的话：做成了什么，或者运行为什么停下。 */
  readonly summary: string;
  /** 这次运行用掉的模型步数。 */
  readonly steps: number;
}
