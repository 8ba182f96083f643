import { type Tool, toolError } from "@coding-agent/agent-core";

/**
 * 调用超时后拒绝时用的错误。它的 `name` 是 `TimeoutError`，与 `AbortSignal.timeout(ms)` 的原因相同，
 * 按名字判断的代码会一视同仁；`ms` 是被超过的时限。
 */
export class CallTimeoutError extends Error {
  override readonly name = "TimeoutError";

  constructor(readonly ms: number) {
    super(`调用超过 ${ms} ms 未完成，已中止`);
  }
}

/**
 * 用一个属于它自己的 `AbortSignal` 运行 `call`，调用怎样结束它就怎样结束，除非以下两件事之一先发生：
 * - 过了 `ms` 毫秒：调用的 signal 以 `CallTimeoutError` 中止，promise 以它拒绝；
 * - 外面的 `signal` 触发（运行被取消，或它自己的期限到了）：调用的 signal 以外面的原因中止，promise
 * 以它拒绝。如果已经触发，调用根本不会开始。
 * 不理会自己 signal 的调用不会被等待。结束之后，定时器被清除，`signal` 上的监听被移除：之后什么都不
 * 会再触发，没有东西让进程继续活着，长时间的运行也不会堆积监听器。
 */
export function withTimeout<T>(
  call: (signal: AbortSignal) => T | PromiseLike<T>,
  ms: number,
  signal?: AbortSignal,
): Promise<T> {
  // #region exercise
  // TODO(lab-15): 调用、时限、外部 signal 三者谁先到听谁的：
  //   - 调用先结束：照它的结果 resolve / reject；
  //   - ms 先到：调用自己收到的 signal 以 CallTimeoutError 中止，返回的 promise 也以它 reject；
  //   - 外部 signal 先触发：调用的 signal 以外部的原因中止，promise 也以它 reject；
  //     signal 一开始就已触发时，调用根本不要开始。
  //   无论哪种结局，之后都不能再有计时器触发，signal 上也不能留下监听。
  //   现在的写法不设任何时限：调用多慢，这里就等多久；外部取消也传不到调用里。
  void ms;
  void signal;
  return Promise.resolve().then(() => call(new AbortController().signal));
  // #endregion exercise
}

/**
 * 每次调用最多 `ms` 毫秒的工具：更慢的调用被中止，并以 `toolError("timeout", …)` 回答，这是模型可以
 * 应对的预料之中的错误，运行继续。运行自己的取消仍然通过 `signal` 到达工具。
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
