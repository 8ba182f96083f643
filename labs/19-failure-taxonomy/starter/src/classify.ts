import {
  type Failure,
  type FailureClass,
  type FailureSource,
  findFailureRow,
  isAbortError,
} from "@coding-agent/agent-core";

/**
 * 一次失败的类别，从 `FAILURE_TABLE` 里读：把失败变成它那一行的键（`findFailureRow(source, key)`），
 * 取那一行的类别。Provider 的状态码先精确查找（`"429"`），再按范围查找（`"5xx"`）；从未应答的
 * Provider 是 `no_response`。表里没有的键是 `bug`，永远不是 `retryable`。纯函数，对任何输入都有结果：
 * 从不抛出。
 */
export function classifyFailure(failure: Failure): FailureClass {
  // #region exercise
  // TODO(lab-19): 把失败变成表格行的键，查 FAILURE_TABLE：
  //   - provider：没有 status（服务器没回应）查 "no_response"；先查确切的状态码（"429"），
  //     查不到再查它所在的范围（"4xx"、"5xx"）；不是 100..599 的整数就是 bug；
  //   - exec：超时被我们杀掉的进程身上也有 SIGKILL，先看 timedOut，再看 signal，再看非零退出码；
  //     退出码 0 不是失败，是 bug；
  //   - thrown：isAbortError 为真是 "abort"，否则是 "error"；
  //   - 表格里没有的键一律是 bug，绝不是 retryable。
  //   现在的写法只会查 tool 与 stop 的错误码，其余一律当成 bug。
  if (failure.source === "tool" || failure.source === "stop") {
    return lookup(failure.source, failure.code);
  }
  void isAbortError;
  return "bug";
  // #endregion exercise
}

function lookup(source: FailureSource, key: string): FailureClass {
  const row = findFailureRow(source, key);
  return row?.failureClass ?? "bug";
}
