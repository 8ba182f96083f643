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
  if (signal?.aborted) return Promise.reject(signal.reason);
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      settle();
    };
    const timer = setTimeout(() => {
      const error = new CallTimeoutError(ms);
      controller.abort(error);
      finish(() => reject(error));
    }, ms);
    const onAbort = () => {
      controller.abort(signal?.reason);
      finish(() => reject(signal?.reason));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    Promise.resolve()
      .then(() => call(controller.signal))
      .then(
        (value) => finish(() => resolve(value)),
        (error: unknown) => finish(() => reject(error)),
      );
  });
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
