import type { Action } from "./action.ts";
import { ScriptExhaustedError } from "./errors.ts";
import type { ModelRequest, Provider } from "./provider.ts";

/** A provider that replays a script and remembers what it was asked. */
export interface ScriptedProvider extends Provider {
  /** Every request received, in order, as it was at the moment of the call. */
  readonly requests: readonly ModelRequest[];
}

/**
 * A copy of the request that nobody can change afterwards: not the caller (who may keep
 * pushing to its observations array), not the test reading it (frozen).
 */
function snapshotRequest(request: ModelRequest): ModelRequest {
  // #region exercise
  // TODO(lab-03): 现在返回的就是调用方传入的那个对象，调用方之后往 observations 里追加，
  // 已记录的请求也会跟着变。返回一个副本：task 照抄，observations 复制成新数组
  // （注意 { ...request } 只复制外层，数组仍是共用的），再用 Object.freeze 冻结对象和数组。
  return request;
  // #endregion exercise
}

/**
 * Lets timers and other callbacks run. Awaiting an already resolved promise does not: a
 * caller that loops on this provider forever would then starve the test's own timeout.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A fake model for tests: answers each call with the next action of `script`, records a
 * snapshot of every request, rejects with `ScriptExhaustedError` past the end of the script
 * and with an `AbortError` when the signal is already aborted.
 */
export function createScriptedProvider(script: readonly Action[]): ScriptedProvider {
  const requests: ModelRequest[] = [];

  return {
    get requests() {
      return [...requests];
    },

    async complete(request: ModelRequest, signal?: AbortSignal): Promise<Action> {
      // A cancelled call never reaches the model: it records nothing and uses no step.
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
