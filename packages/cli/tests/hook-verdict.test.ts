/** How a hook command's end is judged (docs/contracts.md §7, lesson 36): only exit 0 allows; it fails closed. */
import { describe, expect, it } from "vitest";
import type { HookRun } from "../src/hooks/run-hook.ts";
import { hookVerdict } from "../src/hooks/verdict.ts";

const exited = (exitCode: number, stdout = "", stderr = "", stdoutTruncated = false): HookRun => ({
  kind: "exited",
  exitCode,
  stdout,
  stderr,
  stdoutTruncated,
});
const pre = { fields: ["input"], timeoutMs: 500 };

describe("hookVerdict", () => {
  it("allows exit 0 with nothing on stdout, or a JSON object of the event's fields", () => {
    expect(hookVerdict(exited(0, "  \n"), pre)).toEqual({ kind: "allow", output: undefined });
    expect(hookVerdict(exited(0, '{"input":{"text":"b"}}\n'), pre)).toEqual({
      kind: "allow",
      output: { input: { text: "b" } },
    });
    expect(hookVerdict(exited(0, "{}"), { fields: [], timeoutMs: 1 })).toEqual({
      kind: "allow",
      output: {},
    });
  });

  it("vetoes on exit 2 with its stderr, whatever stdout says", () => {
    expect(hookVerdict(exited(2, '{"input":{}}', " 不许 \n"), pre)).toEqual({
      kind: "veto",
      message: "不许",
    });
  });

  it.each([
    ["exit 1", exited(1, "", "boom"), "退出码 1"],
    ["exit 127", exited(127), "退出码 127"],
    ["a signal", { kind: "signaled", signal: "SIGKILL", stderr: "" } as HookRun, "SIGKILL"],
    ["a timeout", { kind: "timeout", stderr: "" } as HookRun, "超过 500 ms"],
    ["a cancel", { kind: "cancelled", stderr: "" } as HookRun, "取消"],
    [
      "a command that cannot start",
      { kind: "spawn_failed", message: "ENOENT" } as HookRun,
      "ENOENT",
    ],
    ["stdout that is not JSON", exited(0, "ok"), "不是 JSON"],
    ["a JSON array", exited(0, "[1]"), "不是对象"],
    ["JSON null", exited(0, "null"), "不是对象"],
    ["an unknown key", exited(0, '{"decision":"block"}'), "decision"],
    ["a key of another event", exited(0, '{"result":1}'), "result"],
    ["stdout cut at its bound", exited(0, '{"input":{', "", true), "上限"],
  ])("fails closed on %s", (_, ran, why) => {
    const verdict = hookVerdict(ran, pre);
    expect(verdict.kind).toBe("failed");
    expect(verdict.kind === "failed" && verdict.why).toContain(why);
  });
});
