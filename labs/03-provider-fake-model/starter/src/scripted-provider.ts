import type { Action } from "./action.ts";
import { ScriptExhaustedError } from "./errors.ts";
import type { ModelRequest, Provider } from "./provider.ts";

/** 一个按脚本回放、并记住自己被问了什么的 Provider。 */
export interface ScriptedProvider extends Provider {
  /** 收到的每一个请求，按顺序，保持调用那一刻的样子。 */
  readonly requests: readonly ModelRequest[];
}

/**
 * 请求的一份副本，之后谁都改不了：调用方（它可能还在往 observations 数组里 push）改不了，读它的测试
 * 也改不了（已冻结）。
 */
function snapshotRequest(request: ModelRequest): ModelRequest {
  // #region exercise
  // TODO(lab-03): 现在返回的就是调用方传入的那个对象，调用方之后往 observations 里追加，
  // 已记录的请求也会跟着变。要做到：记下的请求停在调用那一刻的样子——调用方之后怎么改
  // 自己的对象和数组都影响不到它，读它的人也改不了它。
  return request;
  // #endregion exercise
}

/**
 * 让定时器和其他回调有机会运行。await 一个已经 resolve 的 promise 做不到这一点：一个对这个 Provider
 * 无限循环的调用方会饿死测试自己的超时。
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * 测试用的 Fake 模型：每次调用回答 `script` 的下一个动作，记录每个请求的快照；脚本用完后以
 * `ScriptExhaustedError` 拒绝，signal 已中止时以 `AbortError` 拒绝。
 */
export function createScriptedProvider(script: readonly Action[]): ScriptedProvider {
  const requests: ModelRequest[] = [];

  return {
    get requests() {
      return [...requests];
    },

    async complete(request: ModelRequest, signal?: AbortSignal): Promise<Action> {
      // 被取消的调用到不了模型：什么都不记录，也不占用步数。
      signal?.throwIfAborted();
      const snapshot = snapshotRequest(request);
      requests.push(snapshot);
      // #region exercise
      // TODO(lab-03): 脚本用完后 script[...] 是 undefined，这里却用 as 把它当成 Action 悄悄返回，
      // 调用方要到很远的地方才会因为 undefined 出错。改为：action 为 undefined 时抛出
      // ScriptExhaustedError（传入 scriptLength、call 即 requests.length，以及 request: snapshot）。
      void ScriptExhaustedError; // 只为让暂未使用的导入不触发 lint，实现时删掉这一行。
      const action = script[requests.length - 1] as Action;
      // #endregion exercise
      await yieldToEventLoop();
      return action;
    },
  };
}
