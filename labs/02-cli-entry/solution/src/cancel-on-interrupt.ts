/**
 * Ctrl-C 从哪里来。`process` 符合这个形状；测试传入一个 `EventEmitter`，自己 emit "SIGINT"，不会真
 * 的发送信号。
 */
export interface InterruptSource {
  on(event: "SIGINT", listener: () => void): unknown;
  off(event: "SIGINT", listener: () => void): unknown;
}

/**
 * 把 Ctrl-C 变成一次被取消的运行：收到 SIGINT 时 controller 中止，监视着 `controller.signal` 的运行
 * 随之停下并报告 `cancelled`。返回一个停止监听的函数；运行结束后调用它。
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
