import { type Tool, toolError } from "@coding-agent/agent-core";

/**
 * What a call rejects with when its time is up. Its `name` is `TimeoutError`, as
 * for the reason of `AbortSignal.timeout(ms)`, so code that checks names treats
 * both alike; `ms` is the limit that was exceeded.
 */
export class CallTimeoutError extends Error {
  override readonly name = "TimeoutError";

  constructor(readonly ms: number) {
    super(`调用超过 ${ms} ms 未完成，已中止`);
  }
}

/**
 * Runs `call` with an `AbortSignal` of its own and settles as the call does,
 * unless one of two things happens first:
 * - `ms` milliseconds pass: the call's signal is aborted with a `CallTimeoutError`
 *   and the promise rejects with it;
 * - the outer `signal` fires (the run is cancelled, or its own deadline came):
 *   the call's signal is aborted with the outer reason and the promise rejects
 *   with it. If it has already fired, the call is not started at all.
 * A call that ignores its signal is not waited for. Once settled, the timer is
 * cleared and the listener on `signal` removed: nothing fires later, nothing keeps
 * the process alive, and a long run does not pile up listeners.
 */
export function withTimeout<T>(
  call: (signal: AbortSignal) => T | PromiseLike<T>,
  ms: number,
  signal?: AbortSignal,
): Promise<T> {
  // #region exercise
  // TODO(lab-15): 给这次调用一个自己的 AbortController 和一个计时器，谁先到听谁的：
  //   - 调用先结束：照它的结果 resolve / reject；
  //   - ms 先到：用 new CallTimeoutError(ms) 中止调用自己的 controller，并以它 reject；
  //   - 外部 signal 先触发：用 signal.reason 中止调用的 controller，并以它 reject；
  //     signal 一开始就已触发时，调用根本不要开始。
  //   无论哪种结局，都要 clearTimeout 并把挂在 signal 上的监听移除。
  //   现在的写法不设任何时限：调用多慢，这里就等多久；外部取消也传不到调用里。
  void ms;
  void signal;
  return Promise.resolve().then(() => call(new AbortController().signal));
  // #endregion exercise
}

/**
 * The tool with at most `ms` per call: a slower call is aborted and answered with
 * `toolError("timeout", …)`, an expected error the model can act on, and the run
 * goes on. The run's own cancel still reaches the tool through `signal`.
 */
export function withToolTimeout(tool: Tool, ms: number): Tool {
  return {
    ...tool,
    async execute(input, signal) {
      try {
        return await withTimeout((callSignal) => tool.execute(input, callSignal), ms, signal);
      } catch (error) {
        if (error instanceof CallTimeoutError) {
          return toolError("timeout", `工具超过 ${ms} ms 未完成，已中止`);
        }
        throw error;
      }
    },
  };
}
