import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isBlockedOutcome, runAgent, type TraceEvent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  type ApprovalMode,
  type Approver,
  createRunCommandTool,
  createSandboxPolicy,
  createWorkspace,
  type GatedCall,
} from "@coding-agent/tools";
import { decideApproval } from "@lab";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let workspace = "";

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(path.join(tmpdir(), "lab-14-")));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** `touch` is never on the allowlist: whether its file exists tells whether it ran. */
let fileNumber = 0;
function touchCall() {
  fileNumber += 1;
  const name = `ran-${fileNumber}.txt`;
  return { argv: ["touch", name], ran: () => existsSync(path.join(workspace, name)) };
}

/** The capstone's run_command, `echo` allowed, every other program gated by `approval` and decided by `decideApproval`. */
function gatedRunCommand(approval: ApprovalMode, approver?: Approver, timeoutMs?: number) {
  return createRunCommandTool({
    policy: createSandboxPolicy({ workspace: createWorkspace(workspace), allowCommands: ["echo"] }),
    sandbox: { kind: "none" },
    approval,
    decideApproval,
    ...(approver === undefined ? {} : { approver }),
    ...(timeoutMs === undefined ? {} : { approvalTimeoutMs: timeoutMs }),
  });
}

const signal = () => new AbortController().signal;

describe("decideApproval", () => {
  const call: GatedCall = {
    request: {
      tool: "run_command",
      argv: ["rm", "a.txt"],
      program: "/usr/bin/rm",
      reason: "rm 不在允许的命令里",
    },
    undone: '["rm","a.txt"] 没有执行',
  };

  it("a refusal ends the run: blockRun naming why permission was needed, why it was not given and the call", () => {
    const verdict = decideApproval({ allowed: false, reason: "用户拒绝" }, call);
    expect(isBlockedOutcome(verdict), "拒绝应当返回 blockRun(...)").toBe(true);
    const reason = (verdict as { reason?: string }).reason ?? "";
    for (const part of ["rm 不在允许的命令里", "用户拒绝", '["rm","a.txt"] 没有执行']) {
      expect(reason, `原因里应当有「${part}」`).toContain(part);
    }
  });

  it("an allowance keeps its scope: allow for the run, or this once", () => {
    expect(decideApproval({ allowed: true, forRun: true }, call), "本次运行都允许").toBe(
      "allow_run",
    );
    expect(decideApproval({ allowed: true, forRun: false }, call), "只允许一次").toBe("allow_once");
  });
});

describe("run_command with decideApproval", () => {
  it("runs an allowed program without asking", async () => {
    const approver = vi.fn<Approver>();
    const result = await gatedRunCommand("ask", approver).execute(
      { argv: ["echo", "你好"] },
      signal(),
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: "你好\n" });
    expect(approver).not.toHaveBeenCalled();
  });

  it.each<[string, Approver]>([
    ["the user denies", async () => "deny"],
    ["no answer comes within the timeout", () => new Promise(() => {})],
    [
      "the approver throws",
      async () => {
        throw new Error("终端已关闭");
      },
    ],
    ["the answer is not one it knows", async () => "yes" as never],
  ])("blocks when %s, and nothing runs", async (_case, approver) => {
    const call = touchCall();
    const result = await gatedRunCommand("ask", approver, 50).execute(
      { argv: call.argv },
      signal(),
    );
    expect(isBlockedOutcome(result), "拒绝之后应当返回 blockRun(...)").toBe(true);
    expect(call.ran(), "被拒绝的命令不应执行").toBe(false);
  });

  it("ask + allow once: runs this call and asks again next time", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const tool = gatedRunCommand("ask", approver);
    const first = touchCall();
    const second = touchCall();
    await tool.execute({ argv: first.argv }, signal());
    await tool.execute({ argv: second.argv }, signal());
    expect([first.ran(), second.ran()]).toEqual([true, true]);
    expect(approver).toHaveBeenCalledTimes(2);
  });

  it("ask + allow for the run: runs it and does not ask again for that program", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const tool = gatedRunCommand("ask", approver);
    const first = touchCall();
    const second = touchCall();
    await tool.execute({ argv: first.argv }, signal());
    await tool.execute({ argv: second.argv }, signal());
    expect([first.ran(), second.ran()]).toEqual([true, true]);
    expect(approver, "“本次运行都允许”之后，同一个程序不应再问").toHaveBeenCalledTimes(1);
  });

  it("allow for the run covers that program only: another one is asked again", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const tool = gatedRunCommand("ask", approver);
    const touch = touchCall();
    await tool.execute({ argv: touch.argv }, signal());
    const folder = `folder-${fileNumber}`;
    await tool.execute({ argv: ["mkdir", folder] }, signal());
    expect(approver, "允许了 touch，不等于允许了 mkdir").toHaveBeenCalledTimes(2);
    expect(approver.mock.calls[1]?.[0].argv).toEqual(["mkdir", folder]);
    expect(existsSync(path.join(workspace, folder))).toBe(true);
  });

  it("asks with the call: the tool, the argv and the absolute program", async () => {
    const approver = vi.fn<Approver>(async () => "deny");
    const call = touchCall();
    await gatedRunCommand("ask", approver).execute({ argv: call.argv }, signal());
    expect(approver.mock.calls[0]?.[0]).toMatchObject({ tool: "run_command", argv: call.argv });
    expect(path.isAbsolute(approver.mock.calls[0]?.[0].program ?? "")).toBe(true);
  });

  it("deny mode: blocks without asking, nothing runs", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const call = touchCall();
    const result = await gatedRunCommand("deny", approver).execute({ argv: call.argv }, signal());
    expect(isBlockedOutcome(result)).toBe(true);
    expect(approver).not.toHaveBeenCalled();
    expect(call.ran()).toBe(false);
  });

  it("auto mode: answers not_allowed without asking, nothing runs", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const call = touchCall();
    const result = await gatedRunCommand("auto", approver).execute({ argv: call.argv }, signal());
    expect(result).toMatchObject({ ok: false, error: { code: "not_allowed" } });
    expect(approver).not.toHaveBeenCalled();
    expect(call.ran()).toBe(false);
  });
});

describe("runAgent with an approval gate", () => {
  async function runWith(approval: ApprovalMode, approver: Approver, argv: string[]) {
    const trace: TraceEvent[] = [];
    const result = await runAgent(
      "在工作区里建一个文件",
      createScriptedProvider([
        { action: { type: "tool_call", tool: "run_command", input: { argv }, callId: "c1" } },
        { action: { type: "finish", summary: "建好了" } },
      ]),
      { run_command: gatedRunCommand(approval, approver) },
      { maxSteps: 5 },
      undefined,
      { trace: (event) => void trace.push(event) },
    );
    return { result, trace };
  }

  it("a denied call ends the run blocked, naming the call and the reason; nothing ran", async () => {
    const call = touchCall();
    const { result } = await runWith("ask", async () => "deny", call.argv);
    expect(
      result,
      `被拒绝的调用应当让运行以 blocked / permission_denied 结束；你的运行以 ${result.status} / ${result.code} 结束`,
    ).toMatchObject({ status: "blocked", code: "permission_denied", steps: 1 });
    expect(result.reason).toContain(JSON.stringify(call.argv));
    expect(result.reason).toContain("用户拒绝");
    expect(call.ran(), "被拒绝的命令不应执行").toBe(false);
  });

  it("a blocked call is neither counted in toolCalls nor traced as started", async () => {
    const call = touchCall();
    const { result, trace } = await runWith("ask", async () => "deny", call.argv);
    expect(result.status, `被拒绝后运行应当是 blocked；你的运行以 ${result.code} 结束`).toBe(
      "blocked",
    );
    expect(result.toolCalls, "没有执行的调用不计入 toolCalls").toBe(0);
    const started = trace.filter((event) => event.type === "tool_started");
    expect(started, "没有执行的调用不应有 tool_started").toEqual([]);
    expect(result.messages.find((message) => message.role === "tool")).toMatchObject({
      callId: "c1",
      ok: false,
      error: { code: "permission_denied" },
    });
  });

  it("an approved call runs, is counted, and the run completes", async () => {
    const call = touchCall();
    const { result, trace } = await runWith("ask", async () => "allow_once", call.argv);
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(trace.filter((event) => event.type === "tool_started")).toHaveLength(1);
    expect(call.ran()).toBe(true);
  });

  it("auto mode: the refusal is an observation and the run goes on", async () => {
    const call = touchCall();
    const { result } = await runWith("auto", async () => "allow_run", call.argv);
    expect(result.status).toBe("completed");
    expect(result.messages.find((message) => message.role === "tool")).toMatchObject({
      ok: false,
      error: { code: "not_allowed" },
    });
    expect(call.ran()).toBe(false);
  });
});
