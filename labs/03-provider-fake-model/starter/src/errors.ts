import type { ModelRequest } from "./provider.ts";

/**
 * 脚本化的 Provider 被调用的次数超过了脚本允许的次数。这是测试或被测代码（一个停不下来的循环）的错
 * 误，所以抛出，并带上足以判断是哪一种的上下文。
 */
export class ScriptExhaustedError extends Error {
  override readonly name = "ScriptExhaustedError";
  /** 脚本里有多少个动作。 */
  readonly scriptLength: number;
  /** 发现脚本已空的那次调用是第几次（从 1 开始）。 */
  readonly call: number;
  /** 那次调用的请求。 */
  readonly request: ModelRequest;

  constructor(details: { scriptLength: number; call: number; request: ModelRequest }) {
    const last = details.request.observations.at(-1) ?? "（无）";
    super(
      `脚本化 Provider 的脚本已用完：脚本只有 ${details.scriptLength} 个动作，却收到了第 ${details.call} 次调用。` +
        `最后一条观察：${last}。检查调用方是否在 finish 之后仍在循环，或脚本是否少写了动作。`,
    );
    this.scriptLength = details.scriptLength;
    this.call = details.call;
    this.request = details.request;
  }
}
