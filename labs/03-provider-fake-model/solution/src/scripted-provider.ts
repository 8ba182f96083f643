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
  // 复制的是数组本身，不只是外层对象：{ ...request } 仍与调用方共用同一个 observations 数组。
  return Object.freeze({
    task: request.task,
    observations: Object.freeze([...request.observations]),
  });
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
      const action = script[requests.length - 1];
      // 脚本用完就大声失败：静默返回 undefined 会让错误在调用方很远的地方才暴露。
      if (action === undefined) {
        throw new ScriptExhaustedError({
          scriptLength: script.length,
          call: requests.length,
          request: snapshot,
        });
      }
      // #endregion exercise
      await yieldToEventLoop();
      return action;
    },
  };
}
