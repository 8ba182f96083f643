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
  switch (failure.source) {
    case "provider": {
      const { status } = failure;
      if (status === undefined) return lookup("provider", "no_response");
      if (!Number.isInteger(status) || status < 100 || status > 599) return "bug";
      const range = `${Math.floor(status / 100)}xx`;
      return findFailureRow("provider", String(status))?.failureClass ?? lookup("provider", range);
    }
    case "tool":
    case "stop":
      return lookup(failure.source, failure.code);
    case "exec":
      if (failure.timedOut) return lookup("exec", "timed_out");
      if (failure.signal !== null) return lookup("exec", "signal");
      if (failure.exitCode !== 0) return lookup("exec", "exit_nonzero");
      return "bug";
    case "thrown":
      return lookup("thrown", isAbortError(failure.error) ? "abort" : "error");
    default:
      return "bug";
  }
  // #endregion exercise
}

function lookup(source: FailureSource, key: string): FailureClass {
  const row = findFailureRow(source, key);
  return row?.failureClass ?? "bug";
}
