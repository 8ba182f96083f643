import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineTool, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  createRunCommand,
  createSandboxPolicy,
  createWorkspace,
  RunCommandInputSchema,
} from "@coding-agent/tools";
import { runProcess } from "@lab";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createProcessLab, type ProcessLab, settleWithin } from "./processes.ts";

let lab: ProcessLab;
beforeEach(async () => {
  lab = await createProcessLab();
});
// Runs even when a test fails: every process a script recorded is killed, the folder removed.
afterEach(() => lab.cleanUp());

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

function run(
  argv: [string, ...string[]],
  options: { timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal } = {},
) {
  return runProcess({
    argv,
    cwd: lab.dir,
    env,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxOutputBytes: options.maxOutputBytes ?? 10_000,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/**
 * How long a call may take to come back once its group should be gone. Generous for a
 * busy machine; a call that never comes back (a process still holds its output pipe)
 * is reported by an assertion after it, not by the test's timeout.
 */
const RETURN_MS = 3_000;

/** `sh` records itself, starts a child in the background and becomes `sleep 100`. */
const CHILD_AND_SLEEP = 'echo $$ >> "$1"; sleep 100 & echo $! >> "$1"; exec sleep 100';

/** As above, plus a child `sh` with a grandchild of its own: four processes, all recorded. */
const GRANDCHILDREN =
  'echo $$ >> "$1"; sleep 100 & echo $! >> "$1"; ' +
  'sh -c \'echo $$ >> "$1"; sleep 100 & echo $! >> "$1"; exec sleep 100\' inner "$1" & ' +
  "exec sleep 100";

describe("runProcess", { timeout: 10_000 }, () => {
  it("reports the exit code and both streams", async () => {
    const outcome = await settleWithin(run(lab.sh("echo out; echo err >&2; exit 3")), RETURN_MS);
    expect(outcome, "正常结束的命令要带着它的结果回来，而不是抛出错误").toEqual({
      settled: true,
      value: {
        exitCode: 3,
        signal: null,
        stdout: "out\n",
        stderr: "err\n",
        truncated: false,
        timedOut: false,
      },
    });
  });

  it("runs argv without a shell: $HOME, ; and backquotes reach the program as plain text", async () => {
    const result = await run(["/bin/echo", "$HOME", "; touch pwned", "`touch pwned-too`"]);
    expect(result.stdout).toBe("$HOME ; touch pwned `touch pwned-too`\n");
    expect(existsSync(join(lab.dir, "pwned")), "参数被 shell 执行了：创建了 pwned").toBe(false);
  });

  it("reports the signal that killed the process", async () => {
    const result = await run(lab.sh("kill -TERM $$"));
    expect(result).toMatchObject({ exitCode: null, signal: "SIGTERM", timedOut: false });
  });

  it("closes stdin: a command reading input sees end-of-file instead of waiting", async () => {
    const result = await run(lab.sh("cat; echo done"), { timeoutMs: 1_000 });
    expect(result, "cat 一直在等输入，直到超时").toMatchObject({
      exitCode: 0,
      stdout: "done\n",
      timedOut: false,
    });
  });

  it("caps output, keeping the head and the tail and saying how much was dropped", async () => {
    const result = await run(lab.sh("echo BEGIN; yes line | head -n 20000; echo END"), {
      maxOutputBytes: 1_000,
    });
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith("BEGIN\n")).toBe(true);
    expect(result.stdout.endsWith("END\n")).toBe(true);
    const dropped = Number(/省略 (\d+) 字节/.exec(result.stdout)?.[1]);
    expect(dropped + 1_000, "保留的加丢掉的，应等于打印的全部字节").toBe(6 + 20_000 * 5 + 4);
  });
});

describe("runProcess ends the whole process group", { timeout: 10_000 }, () => {
  it("kills children and grandchildren on timeout, leaving nothing running", async () => {
    const outcome = await settleWithin(run(lab.sh(GRANDCHILDREN), { timeoutMs: 1_000 }), RETURN_MS);
    expect(await lab.recordedPids(), "超时前脚本应已记下 4 个进程").toHaveLength(4);
    expect(await lab.survivors(), "超时之后，这些进程还在运行").toEqual([]);
    expect(outcome, "超时之后 runProcess 没有返回：还有进程握着输出管道").toMatchObject({
      settled: true,
      value: { exitCode: null, signal: "SIGKILL", timedOut: true },
    });
  });

  it("kills the whole group when the run's signal fires, and rejects with its reason", async () => {
    const controller = new AbortController();
    const pending = run(lab.sh(CHILD_AND_SLEEP), { signal: controller.signal });
    expect(await lab.waitForPids(2), "脚本应先记下 2 个进程").toHaveLength(2);
    controller.abort(new Error("用户取消"));
    const outcome = await settleWithin(pending, RETURN_MS);
    expect(await lab.survivors(), "取消之后，这些进程还在运行").toEqual([]);
    expect(outcome, "取消之后 runProcess 应以取消的原因拒绝").toMatchObject({
      settled: true,
      error: { message: "用户取消" },
    });
  });

  it("kills what the main process left running in the background when it exits", async () => {
    const script = 'sleep 100 & echo $! >> "$1"; echo started';
    const outcome = await settleWithin(run(lab.sh(script)), RETURN_MS);
    expect(await lab.survivors(), "主进程退出了，它放到后台的进程还在运行").toEqual([]);
    expect(outcome, "主进程退出后 runProcess 没有返回：后台进程还握着输出管道").toMatchObject({
      settled: true,
      value: { exitCode: 0, stdout: "started\n", timedOut: false },
    });
  });

  it("comes back with the result when the main process exits and nothing of its group is left", async () => {
    const outcome = await settleWithin(run(lab.sh("echo alone")), RETURN_MS);
    expect(outcome, "组已经不在了：结束它时的 ESRCH 不该让调用失败").toMatchObject({
      settled: true,
      value: { exitCode: 0, stdout: "alone\n", timedOut: false },
    });
  });
});

describe("your runProcess inside run_command and runAgent", { timeout: 10_000 }, () => {
  it("a command that outlives its timeout comes back as a timeout observation with its output, nothing is left running, the run goes on", async () => {
    const runCommand = createRunCommand({
      policy: createSandboxPolicy({
        workspace: createWorkspace(lab.dir),
        allowCommands: ["sh", "echo"],
        env,
      }),
      sandbox: { kind: "none" },
      approval: "deny",
      runProcess,
    });
    const tools = {
      run_command: defineTool({
        inputSchema: RunCommandInputSchema,
        execute: (input, signal) => runCommand(input, signal),
      }),
    };
    const command = (argv: string[], timeoutMs?: number) => ({
      action: {
        type: "tool_call",
        tool: "run_command",
        input: timeoutMs === undefined ? { argv } : { argv, timeoutMs },
      },
    });
    const provider = createScriptedProvider([
      command(["sh", "-c", `echo begun; ${GRANDCHILDREN}`, "sh", lab.pidFile], 1_000),
      command(["echo", "还在运行"]),
      { action: { type: "finish", summary: "两条命令都回来了" } },
    ]);
    const outcome = await settleWithin(
      runAgent("运行两条命令", provider, tools, { maxSteps: 5 }),
      RETURN_MS,
    );
    expect(await lab.survivors(), "超时的命令留下了还在运行的进程").toEqual([]);
    expect(outcome, "超时的命令没有回来，运行卡住了").toMatchObject({
      settled: true,
      value: { status: "completed" },
    });
    const result = (outcome as { value: Awaited<ReturnType<typeof runAgent>> }).value;
    const observations = result.messages.filter((message) => message.role === "tool");
    expect(observations).toMatchObject([
      {
        ok: false,
        error: { code: "timeout", message: expect.stringContaining('"timedOut":true') },
      },
      { ok: true, content: expect.stringContaining('"stdout":"还在运行\\n"') },
    ]);
    expect(observations[0]).toMatchObject({ error: { message: expect.stringContaining("begun") } });
  });
});
