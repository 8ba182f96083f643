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
  // TODO(lab-02): 让 source 上的 Ctrl-C（"SIGINT"）变成对 controller 的取消请求，
  // 正在进行的运行看到它的 signal 被中止，以 cancelled 结束（不要在这里退出进程）。
  // 返回的函数要让这个监听彻底消失：运行结束后 source 上不留下任何监听。
  // 下面两行只是让暂未使用的参数不触发 lint，实现时删掉。
  void source;
  void controller;
  return () => {};
  // #endregion exercise
}
