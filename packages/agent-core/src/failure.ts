/**
 * The failure taxonomy: every failure a run can meet gets exactly one class, and
 * the class says what to do with it. `retryable`: the same call may succeed if
 * tried again (a timeout, a rate limit, a 5xx). `test_failure`: the work ran and
 * is not done yet (a failing test, a command that exited non-zero). `permission_denied`:
 * a person or policy said no. `cancelled`: someone stopped the run. `invalid_input`:
 * the call or the task as given cannot work; trying it again unchanged ends the same.
 * `bug`: something our own code did not expect; nobody should retry it.
 *
 * One table, `FAILURE_TABLE`, holds every mapping; `classifyFailure` only turns a
 * failure into its row's key and looks the key up. A key the table does not know
 * is `bug`, never `retryable`: retrying what nobody understood hides it.
 */

import { deepFreeze } from "./deep-freeze.ts";
import { isAbortError } from "./errors.ts";

/** The classes, in the order the docs list them. */
export const FAILURE_CLASSES = [
  "retryable",
  "test_failure",
  "permission_denied",
  "cancelled",
  "invalid_input",
  "bug",
] as const;

export type FailureClass = (typeof FAILURE_CLASSES)[number];

/**
 * A failure, by where it came from. `provider`: a model call failed; `status` is the
 * HTTP status the provider's error carries, `undefined` when the server never
 * answered. `tool`: a tool error code. `stop`: a run's stop code (a `provider_error`
 * stop is classified by its status: pass the provider's error instead). `exec`: how a
 * process ended. `thrown`: anything else that was thrown.
 */
export type Failure =
  | { readonly source: "provider"; readonly status: number | undefined }
  | { readonly source: "tool"; readonly code: string }
  | { readonly source: "stop"; readonly code: string }
  | {
      readonly source: "exec";
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly timedOut: boolean;
    }
  | { readonly source: "thrown"; readonly error: unknown };

export type FailureSource = Failure["source"];

/** One mapping: failures of `source` whose key is `key` are `failureClass`. */
export interface FailureRow {
  readonly source: FailureSource;
  /**
   * provider: `no_response`, an exact status (`"429"`) or a range (`"5xx"`);
   * tool / stop: the code; exec: `timed_out`, `signal` or `exit_nonzero`;
   * thrown: `abort` or `error`.
   */
  readonly key: string;
  readonly failureClass: FailureClass;
  /** Why, in one line. */
  readonly why: string;
}

const row = (
  source: FailureSource,
  key: string,
  failureClass: FailureClass,
  why: string,
): FailureRow => ({ source, key, failureClass, why });

/** Every mapping of the taxonomy. Exact provider statuses win over their range. */
export const FAILURE_TABLE: readonly FailureRow[] = deepFreeze([
  row("provider", "no_response", "retryable", "the server was not reached or did not answer"),
  row("provider", "408", "retryable", "request timeout: the server gave up waiting"),
  row("provider", "429", "retryable", "rate limited: the same request succeeds later"),
  row("provider", "4xx", "invalid_input", "the request itself is wrong (key, model, body)"),
  row("provider", "5xx", "retryable", "the server failed; a later attempt may not"),
  row("tool", "path_outside_workspace", "permission_denied", "the path leaves the workspace"),
  row("tool", "path_not_allowed", "permission_denied", "the path is outside --allow-path"),
  row("tool", "is_directory", "invalid_input", "a directory was given where a file is needed"),
  row("tool", "invalid_input", "invalid_input", "the input does not match the tool's schema"),
  row("tool", "not_found", "invalid_input", "the file does not exist"),
  row("tool", "stale_file", "invalid_input", "the file changed since it was read: read it again"),
  row("tool", "not_found_text", "invalid_input", "the text to replace is not in the file"),
  row("tool", "not_unique", "invalid_input", "the text to replace occurs more than once"),
  row("tool", "write_failed", "bug", "the write threw what the tool did not expect"),
  row("tool", "timeout", "retryable", "the command ran past its time limit"),
  row("tool", "no_test_command", "invalid_input", "the task names no test command"),
  row("tool", "not_allowed", "permission_denied", "the command was refused"),
  row("tool", "unknown_tool", "invalid_input", "the model named a tool that is not registered"),
  row("tool", "tool_error", "bug", "the tool threw instead of returning an error"),
  row("stop", "cancelled", "cancelled", "the run's signal was aborted"),
  row("stop", "permission_denied", "permission_denied", "a permission was refused"),
  row("stop", "model_timeout", "retryable", "one model call ran past modelTimeoutMs"),
  row("stop", "invalid_action", "invalid_input", "the model's reply was not a valid action"),
  row("stop", "unknown_tool", "invalid_input", "the model named a tool that is not registered"),
  row("stop", "tool_error", "bug", "a tool threw instead of returning an error"),
  row("stop", "max_steps", "invalid_input", "the task's step budget is too small for the work"),
  row("stop", "max_tool_calls", "invalid_input", "the task's tool-call budget is used up"),
  row("stop", "max_tokens", "invalid_input", "the task's token budget is used up"),
  row("stop", "max_duration", "invalid_input", "the task's time budget is used up"),
  row("stop", "max_tool_errors", "invalid_input", "the model kept calling tools wrongly"),
  row("stop", "repeated_action", "invalid_input", "the model repeated the same action"),
  row("exec", "timed_out", "retryable", "the process was killed at its time limit"),
  row("exec", "signal", "test_failure", "the process died of a signal it was not sent by us"),
  row("exec", "exit_nonzero", "test_failure", "the process ran and reported failure"),
  row("thrown", "abort", "cancelled", "an AbortError: someone stopped the work"),
  row("thrown", "error", "bug", "an unexpected throw in our own code"),
]);

const byKey = new Map(FAILURE_TABLE.map((entry) => [`${entry.source}:${entry.key}`, entry]));

/** The table's row for `source` and `key`, or `undefined` when the table has none. */
export function findFailureRow(source: FailureSource, key: string): FailureRow | undefined {
  return byKey.get(`${source}:${key}`);
}

/** The class of a failure. Pure and total: never throws; an unknown key is `bug`. */
export function classifyFailure(failure: Failure): FailureClass {
  switch (failure.source) {
    case "provider": {
      const { status } = failure;
      if (status === undefined) return classOf("provider", "no_response");
      // 429.5 would read as "4xx"; any other integer with no row (200, 600, -1) finds none: bug.
      if (!Number.isInteger(status)) return "bug";
      const exact = findFailureRow("provider", String(status));
      return exact?.failureClass ?? classOf("provider", `${Math.floor(status / 100)}xx`);
    }
    case "tool":
    case "stop":
      return classOf(failure.source, failure.code);
    case "exec":
      // A timed-out process was killed by our SIGKILL: the timeout decides, not the signal.
      if (failure.timedOut) return classOf("exec", "timed_out");
      if (failure.signal !== null) return classOf("exec", "signal");
      if (failure.exitCode !== 0) return classOf("exec", "exit_nonzero");
      return "bug"; // exit 0: not a failure, so calling it one is the caller's mistake
    case "thrown":
      return classOf("thrown", isAbortError(failure.error) ? "abort" : "error");
    default:
      return "bug";
  }
}

function classOf(source: FailureSource, key: string): FailureClass {
  return findFailureRow(source, key)?.failureClass ?? "bug";
}
