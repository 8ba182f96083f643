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
  // 复制的是数组本身，不只是外层对象：{ ...request } 仍与调用方共用同一个 observations 数组。
  return Object.freeze({
    task: request.task,
    observations: Object.freeze([...request.observations]),
  });
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
