import {
  AbortError,
  FAILURE_CLASSES,
  FAILURE_TABLE,
  type Failure,
  ScriptExhaustedError,
} from "@coding-agent/agent-core";
import { classifyFailure } from "@lab";
import { describe, expect, it } from "vitest";
import { exec, failureFor } from "./failures.ts";

describe("classifyFailure", () => {
  it("classifies a tool error code or a run stop code as its row of the table says", () => {
    expect(classifyFailure({ source: "tool", code: "timeout" })).toBe("retryable");
    expect(classifyFailure({ source: "tool", code: "not_allowed" })).toBe("permission_denied");
    expect(classifyFailure({ source: "tool", code: "not_unique" })).toBe("invalid_input");
    expect(classifyFailure({ source: "tool", code: "tool_error" })).toBe("bug");
    expect(classifyFailure({ source: "stop", code: "cancelled" })).toBe("cancelled");
    expect(classifyFailure({ source: "stop", code: "model_timeout" })).toBe("retryable");
  });

  it("is bug, not retryable, for a tool or stop code the table does not know", () => {
    for (const failure of [
      { source: "tool", code: "disk_on_fire" },
      { source: "tool", code: "TIMEOUT" },
      { source: "tool", code: "" },
      { source: "stop", code: "finished" },
      { source: "stop", code: "provider_error" },
    ] as const) {
      expect(classifyFailure(failure), JSON.stringify(failure)).toBe("bug");
    }
  });

  it("reads a provider status exactly first (408, 429), then by its range: every other 4xx is invalid_input, every 5xx retryable", () => {
    for (let status = 400; status < 600; status += 1) {
      const expected =
        status >= 500 || status === 408 || status === 429 ? "retryable" : "invalid_input";
      expect(classifyFailure({ source: "provider", status }), `HTTP ${status}`).toBe(expected);
    }
  });

  it("reads a provider that never answered as retryable, and a status that is no HTTP error (2xx, 3xx, outside 100..599, not an integer) as bug", () => {
    expect(classifyFailure({ source: "provider", status: undefined }), "没有 status").toBe(
      "retryable",
    );
    for (const status of [200, 204, 302, 99, 600, 1000, -429, 429.5, Number.NaN]) {
      expect(classifyFailure({ source: "provider", status }), `HTTP ${status}`).toBe("bug");
    }
  });

  it("reads a timed-out process as retryable though our kill left SIGKILL on it; another signal or a non-zero exit is test_failure; exit 0 is bug", () => {
    expect(classifyFailure(exec(null, "SIGKILL", true)), "超时，被 SIGKILL 杀掉").toBe("retryable");
    expect(classifyFailure(exec(137, null, true)), "超时，退出码 137").toBe("retryable");
    expect(classifyFailure(exec(null, null, true)), "超时").toBe("retryable");
    expect(classifyFailure(exec(null, "SIGSEGV", false)), "段错误").toBe("test_failure");
    expect(classifyFailure(exec(null, "SIGKILL", false)), "不是我们杀的").toBe("test_failure");
    expect(classifyFailure(exec(1, null, false)), "退出码 1").toBe("test_failure");
    expect(classifyFailure(exec(0, null, false)), "退出码 0 不是失败").toBe("bug");
  });

  it("reads an AbortError (ours or the DOM's) as cancelled, and any other throw, even one of agent-core's own errors, as bug", () => {
    const domAbort = Object.assign(new Error("The operation was aborted"), { name: "AbortError" });
    expect(
      classifyFailure({ source: "thrown", error: new AbortError("stopped") }),
      "AbortError",
    ).toBe("cancelled");
    expect(classifyFailure({ source: "thrown", error: domAbort }), "DOM AbortError").toBe(
      "cancelled",
    );
    for (const error of [
      new TypeError("x is undefined"),
      new ScriptExhaustedError("script used up"),
      "a string",
      undefined,
      { name: "AbortError" },
    ]) {
      expect(classifyFailure({ source: "thrown", error }), `抛出 ${String(error)}`).toBe("bug");
    }
  });

  it("agrees with every row of FAILURE_TABLE, and always answers one of the six classes", () => {
    for (const row of FAILURE_TABLE) {
      const failure: Failure = failureFor(row);
      expect(classifyFailure(failure), `${row.source}:${row.key}（${row.why}）`).toBe(
        row.failureClass,
      );
    }
    expect(FAILURE_CLASSES).toHaveLength(6);
  });
});
