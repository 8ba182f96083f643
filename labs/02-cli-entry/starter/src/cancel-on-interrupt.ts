/**
 * Where Ctrl-C comes from. `process` fits this shape; a test passes an `EventEmitter`
 * and emits "SIGINT" itself, so no real signal is ever sent.
 */
export interface InterruptSource {
  on(event: "SIGINT", listener: () => void): unknown;
  off(event: "SIGINT", listener: () => void): unknown;
}

/**
 * Turns Ctrl-C into a cancelled run: on SIGINT the controller aborts, and the run, which
 * watches `controller.signal`, stops and reports `cancelled`. Returns a function that
 * stops listening; call it when the run is over.
 */
export function cancelOnInterrupt(
  source: InterruptSource,
  controller: AbortController,
): () => void {
  // #region exercise
  // TODO(lab-02): 在 source 上监听 "SIGINT"，收到时调用 controller.abort()，
  // 让正在进行的运行看到 signal.aborted 并以 cancelled 结束（不要在这里退出进程）。
  // 返回的函数要用 source.off 移除同一个监听器，运行结束后不留下监听。
  // 下面两行只是让暂未使用的参数不触发 lint，实现时删掉。
  void source;
  void controller;
  return () => {};
  // #endregion exercise
}
