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
