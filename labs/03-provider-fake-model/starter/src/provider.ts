import type { Action } from "./action.ts";

/** 循环每一步发给模型的内容。 */
export interface ModelRequest {
  readonly task: string;
  /** 运行到目前为止的观察，最早的在前（`message:…`、`tool:NAME:JSON`）。 */
  readonly observations: readonly string[];
}

/** 藏在一个方法后面的模型：测试里是脚本化的 Fake，以后是真实的适配器。 */
export interface Provider {
  /**
   * 提出下一个动作。`signal` 取消这次调用：已经中止的 signal 必须让它以 `AbortError` 拒绝，而不是去
   * 调用模型。
   */
  complete(request: ModelRequest, signal?: AbortSignal): Promise<Action>;
}
