import type { Action } from "./action.ts";

/** 循环每一步发给模型的内容。 */
export interface ModelRequest {
  readonly task: string;
  /** 运行到目前为止的观察的副本，最早的在前。 */
  readonly observations: readonly string[];
}

/** 藏在一个接口后面的模型：测试里是脚本化的 Fake，以后是真实的适配器。 */
export interface Provider {
  /** 提出下一个动作；运行被取消时，`signal` 让进行中的调用停下。 */
  complete(request: ModelRequest, signal?: AbortSignal): Promise<Action>;
}
