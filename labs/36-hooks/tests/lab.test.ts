import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createHookExtension,
  createRedactor,
  type RunExtension,
  runAgent,
  type ToolSet,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createCommandHooks, type HookEntry, type HookRun } from "@coding-agent/cli";
import { hookVerdict } from "@lab";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const exited = (exitCode: number, stdout = "", stderr = "", stdoutTruncated = false): HookRun => ({
  kind: "exited",
  exitCode,
  stdout,
  stderr,
  stdoutTruncated,
});
const pre = { fields: ["input"], timeoutMs: 500 };

describe("hookVerdict", () => {
  it("allows exit 0 with nothing on stdout", () => {
    expect(hookVerdict(exited(0, " \n"), pre), "什么都没写就是放行").toEqual({
      kind: "allow",
      output: undefined,
    });
  });

  it("allows exit 0 with a JSON object of the event's fields, as its output", () => {
    expect(hookVerdict(exited(0, '{"input":{"path":"b.txt"}}\n'), pre), "改写的输入").toEqual({
      kind: "allow",
      output: { input: { path: "b.txt" } },
    });
  });

  it("vetoes on exit 2 with its stderr", () => {
    expect(hookVerdict(exited(2, "", " 不许写 .env \n"), pre)).toEqual({
      kind: "veto",
      message: "不许写 .env",
    });
  });

  it("fails closed on any other exit code", () => {
    for (const code of [1, 3, 127, 255]) {
      const verdict = hookVerdict(exited(code, "", "boom"), pre);
      expect(verdict, `退出码 ${code}`).toMatchObject({ kind: "failed", stderr: "boom" });
      expect(verdict.kind === "failed" && verdict.why, `退出码 ${code} 写进 why`).toContain(
        String(code),
      );
    }
  });

  it("fails closed when the command did not end by itself: a timeout, a signal, a cancel, a spawn failure", () => {
    const runs: HookRun[] = [
      { kind: "timeout", stderr: "" },
      { kind: "signaled", signal: "SIGKILL", stderr: "" },
      { kind: "cancelled", stderr: "" },
      { kind: "spawn_failed", message: "ENOENT" },
    ];
    for (const ran of runs) {
      expect(hookVerdict(ran, pre).kind, `命令结束方式 ${ran.kind}`).toBe("failed");
    }
    const timeout = hookVerdict({ kind: "timeout", stderr: "" }, pre);
    expect(timeout.kind === "failed" && timeout.why, "超时写出 timeoutMs").toContain("500");
  });

  it("fails closed on stdout that is not a JSON object", () => {
    for (const stdout of ["ok", "{", "[]", "[1,2]", "null", '"text"', "42"]) {
      expect(hookVerdict(exited(0, stdout), pre).kind, `stdout 是 ${stdout}`).toBe("failed");
    }
  });

  it("fails closed on a key the event does not accept", () => {
    const verdict = hookVerdict(exited(0, '{"decision":"block"}'), pre);
    expect(verdict, "Claude Code 的 decision 字段：这里不认识").toMatchObject({ kind: "failed" });
    expect(verdict.kind === "failed" && verdict.why).toContain("decision");
    expect(hookVerdict(exited(0, '{"result":1}'), pre).kind, "PreToolUse 不能改写结果").toBe(
      "failed",
    );
  });

  it("fails closed on stdout cut at its bound", () => {
    expect(hookVerdict(exited(0, '{"input":{', "", true), pre).kind).toBe("failed");
  });
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lab-36-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A tool with a side effect: it creates the file `name` in the test's folder. */
const tools: ToolSet = {
  write_note: {
    execute: async (input) => {
      await writeFile(join(dir, String(input.name)), "note");
      return `wrote ${String(input.name)}`;
    },
  },
};

/** Runs one write_note call and a finish, with these PreToolUse commands judged by your hookVerdict. */
async function runWithHooks(commands: readonly { command: string; timeoutMs?: number }[]) {
  const entries: HookEntry[] = commands.map((entry, index) => ({
    event: "PreToolUse",
    matcher: undefined,
    command: entry.command,
    timeoutMs: entry.timeoutMs ?? 5_000,
    label: `hooks.PreToolUse[${index}]`,
    source: "workspace",
  }));
  const warnings: string[] = [];
  const hooks = createCommandHooks({
    entries,
    runId: "lab-36",
    workspace: dir,
    redact: createRedactor({ env: {} }),
    env: process.env,
    warn: (line) => warnings.push(line),
    record: async () => {},
    verdict: hookVerdict,
  });
  const extensions: RunExtension[] =
    hooks.tools === undefined ? [] : [createHookExtension(hooks.tools)];
  const model = createScriptedProvider([
    { action: { type: "tool_call", tool: "write_note", input: { name: "a.txt" } } },
    { action: { type: "finish", summary: "好了" } },
  ]);
  const result = await runAgent("写一条笔记", model, tools, { maxSteps: 5 }, undefined, {
    extensions,
  });
  const toolMessage = result.messages.find((message) => message.role === "tool");
  return { result, toolMessage, warnings };
}

describe("hookVerdict inside runAgent, with real sh hooks", () => {
  it("a hook that prints nothing lets the call run", async () => {
    const { result } = await runWithHooks([{ command: "cat > /dev/null" }]);
    expect(result.status).toBe("completed");
    expect(existsSync(join(dir, "a.txt")), "没有意见的 hook 放行").toBe(true);
  });

  it("exit 2 vetoes with stderr, and the run goes on", async () => {
    const { result, toolMessage } = await runWithHooks([
      { command: "echo '今天不许写笔记' >&2; exit 2" },
    ]);
    expect(result.status).toBe("completed");
    expect(existsSync(join(dir, "a.txt"))).toBe(false);
    expect(toolMessage).toMatchObject({
      ok: false,
      error: { code: "hook_denied", message: "今天不许写笔记" },
    });
  });

  it("a guard that crashes (exit 1) stops the call: the file is never written", async () => {
    const { toolMessage, warnings } = await runWithHooks([
      { command: "jq-that-is-not-installed .tool 2>/dev/null; exit 1" },
    ]);
    expect(existsSync(join(dir, "a.txt")), "崩溃的守卫也要挡住调用").toBe(false);
    expect(toolMessage).toMatchObject({ ok: false, error: { code: "hook_denied" } });
    expect(warnings.join(""), "stderr 写明是哪个 hook").toContain("hooks.PreToolUse[0]");
  });

  it("a guard that hangs is killed at its timeout and stops the call", async () => {
    const { toolMessage } = await runWithHooks([{ command: "sleep 20", timeoutMs: 300 }]);
    expect(existsSync(join(dir, "a.txt")), "卡住的守卫也要挡住调用").toBe(false);
    expect(toolMessage).toMatchObject({ ok: false, error: { code: "hook_denied" } });
  });

  it("a hook that prints garbage stops the call", async () => {
    const { toolMessage } = await runWithHooks([{ command: "echo looks-fine-to-me" }]);
    expect(existsSync(join(dir, "a.txt")), "看不懂的输出不是放行").toBe(false);
    expect(toolMessage).toMatchObject({ ok: false, error: { code: "hook_denied" } });
  });

  it("a rewrite on stdout reaches the tool", async () => {
    const { result } = await runWithHooks([{ command: `echo '{"input":{"name":"b.txt"}}'` }]);
    expect(result.status).toBe("completed");
    expect(existsSync(join(dir, "b.txt")), "改写后的输入交给工具").toBe(true);
    expect(existsSync(join(dir, "a.txt"))).toBe(false);
  });
});
