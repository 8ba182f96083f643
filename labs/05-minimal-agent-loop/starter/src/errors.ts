/**
 * 只在程序员犯错时抛出（新的动作类型在循环里没有分支），普通结果从不抛出：失败、预算耗尽或被取消的
 * 运行都返回 `AgentRunResult`。
 */
export class UnhandledActionError extends Error {
  override readonly name = "UnhandledActionError";
  readonly action: unknown;

  constructor(action: unknown) {
    super(`the loop has no branch for action ${JSON.stringify(action)}`);
    this.action = action;
  }
}
