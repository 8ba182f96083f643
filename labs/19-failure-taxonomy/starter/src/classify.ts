import {
  type Failure,
  type FailureClass,
  type FailureSource,
  findFailureRow,
  isAbortError,
} from "@coding-agent/agent-core";

/**
 * The class of a failure, read from `FAILURE_TABLE`: turn the failure into its row's
 * key (`findFailureRow(source, key)`) and take that row's class. A provider status is
 * looked up exactly first (`"429"`), then by its range (`"5xx"`); a provider that never
 * answered is `no_response`. A key the table does not know is `bug`, never `retryable`.
 * Pure and total: never throws.
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
