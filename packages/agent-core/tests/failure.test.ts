import { describe, expect, it } from "vitest";
import { AbortError, ScriptExhaustedError } from "../src/errors.ts";
import {
  classifyFailure,
  FAILURE_CLASSES,
  FAILURE_TABLE,
  type Failure,
  type FailureClass,
  findFailureRow,
} from "../src/failure.ts";

const exec = (exitCode: number | null, signal: string | null, timedOut: boolean): Failure => ({
  source: "exec",
  exitCode,
  signal,
  timedOut,
});

/** One concrete failure per row of FAILURE_TABLE (the row's key is the case's `row`). */
const ROWS: readonly { row: string; failure: Failure; expected: FailureClass }[] = [
  {
    row: "provider:no_response",
    failure: { source: "provider", status: undefined },
    expected: "retryable",
  },
  { row: "provider:408", failure: { source: "provider", status: 408 }, expected: "retryable" },
  { row: "provider:429", failure: { source: "provider", status: 429 }, expected: "retryable" },
  { row: "provider:4xx", failure: { source: "provider", status: 401 }, expected: "invalid_input" },
  { row: "provider:5xx", failure: { source: "provider", status: 503 }, expected: "retryable" },
  ...(
    [
      ["path_outside_workspace", "permission_denied"],
      ["path_not_allowed", "permission_denied"],
      ["is_directory", "invalid_input"],
      ["invalid_input", "invalid_input"],
      ["not_found", "invalid_input"],
      ["stale_file", "invalid_input"],
      ["not_found_text", "invalid_input"],
      ["not_unique", "invalid_input"],
      ["write_failed", "bug"],
      ["timeout", "retryable"],
      ["no_test_command", "invalid_input"],
      ["not_allowed", "permission_denied"],
      ["unknown_tool", "invalid_input"],
      ["tool_error", "bug"],
    ] as const
  ).map(([code, expected]) => ({
    row: `tool:${code}`,
    failure: { source: "tool", code } as const,
    expected,
  })),
  ...(
    [
      ["cancelled", "cancelled"],
      ["permission_denied", "permission_denied"],
      ["model_timeout", "retryable"],
      ["invalid_action", "invalid_input"],
      ["unknown_tool", "invalid_input"],
      ["tool_error", "bug"],
      ["max_steps", "invalid_input"],
      ["max_tool_calls", "invalid_input"],
      ["max_tokens", "invalid_input"],
      ["max_duration", "invalid_input"],
      ["max_tool_errors", "invalid_input"],
      ["repeated_action", "invalid_input"],
    ] as const
  ).map(([code, expected]) => ({
    row: `stop:${code}`,
    failure: { source: "stop", code } as const,
    expected,
  })),
  { row: "exec:timed_out", failure: exec(null, "SIGKILL", true), expected: "retryable" },
  { row: "exec:signal", failure: exec(null, "SIGSEGV", false), expected: "test_failure" },
  { row: "exec:exit_nonzero", failure: exec(1, null, false), expected: "test_failure" },
  {
    row: "thrown:abort",
    failure: { source: "thrown", error: new AbortError("stop") },
    expected: "cancelled",
  },
  {
    row: "thrown:error",
    failure: { source: "thrown", error: new TypeError("x is undefined") },
    expected: "bug",
  },
];

describe("FAILURE_TABLE", () => {
  it.each(ROWS)("$row is $expected", ({ row, failure, expected }) => {
    const [source, key] = row.split(":") as [Failure["source"], string];
    expect(findFailureRow(source, key)?.failureClass, `${row} 的表格行`).toBe(expected);
    expect(classifyFailure(failure)).toBe(expected);
  });

  it("has a case above for every row, one row per key, and only known classes", () => {
    const keys = FAILURE_TABLE.map((entry) => `${entry.source}:${entry.key}`);
    expect(new Set(keys).size, "no key twice").toBe(keys.length);
    expect(ROWS.map((c) => c.row).sort()).toEqual([...keys].sort());
    for (const entry of FAILURE_TABLE) {
      expect(FAILURE_CLASSES, `${entry.source}:${entry.key}`).toContain(entry.failureClass);
      expect(entry.why.trim(), `${entry.source}:${entry.key} says why`).not.toBe("");
    }
    expect(Object.isFrozen(FAILURE_TABLE) && Object.isFrozen(FAILURE_TABLE[0])).toBe(true);
  });
});

describe("classifyFailure", () => {
  it("maps every status 400..599 by its range, except 408 and 429 which retry", () => {
    for (let status = 400; status < 600; status += 1) {
      const expected =
        status >= 500 || status === 408 || status === 429 ? "retryable" : "invalid_input";
      expect(classifyFailure({ source: "provider", status }), `HTTP ${status}`).toBe(expected);
    }
  });

  it("is bug, not retryable, for what the table does not know", () => {
    const unknown: Failure[] = [
      { source: "tool", code: "disk_on_fire" },
      { source: "tool", code: "" },
      { source: "tool", code: "TIMEOUT" },
      { source: "stop", code: "finished" },
      { source: "stop", code: "provider_error" },
      { source: "provider", status: 200 },
      { source: "provider", status: 302 },
      { source: "provider", status: 600 },
      { source: "provider", status: 99 },
      { source: "provider", status: -429 },
      { source: "provider", status: 1000 },
      { source: "provider", status: 429.5 },
      { source: "provider", status: Number.NaN },
      exec(0, null, false),
    ];
    for (const failure of unknown)
      expect(classifyFailure(failure), JSON.stringify(failure)).toBe("bug");
  });

  it("reads a timed-out process as a timeout even though our kill left a signal on it", () => {
    expect(classifyFailure(exec(null, "SIGKILL", true))).toBe("retryable");
    expect(classifyFailure(exec(137, null, true))).toBe("retryable");
    expect(classifyFailure(exec(null, "SIGKILL", false))).toBe("test_failure");
  });

  it("reads a DOM AbortError as cancelled and any other throw, even ours, as bug", () => {
    const domAbort = Object.assign(new Error("aborted"), { name: "AbortError" });
    expect(classifyFailure({ source: "thrown", error: domAbort })).toBe("cancelled");
    for (const error of [
      new ScriptExhaustedError("x"),
      "text",
      undefined,
      null,
      { name: "AbortError" },
    ]) {
      expect(classifyFailure({ source: "thrown", error }), String(error)).toBe("bug");
    }
  });
});
