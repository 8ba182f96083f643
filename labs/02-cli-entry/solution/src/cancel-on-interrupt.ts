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
  // 不在这里退出进程：只发出取消请求，由运行自己收尾并返回 cancelled。
  const onInterrupt = (): void => {
    controller.abort(new DOMException("收到 Ctrl-C（SIGINT）", "AbortError"));
  };
  source.on("SIGINT", onInterrupt);
  // 运行结束后必须移除监听，否则监听器会随每次运行累积。
  return () => {
    source.off("SIGINT", onInterrupt);
  };
  // #endregion exercise
}
