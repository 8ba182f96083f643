import { existsSync } from "node:fs";
import { join } from "node:path";
import { createToolRegistry, runAgent, type TraceEvent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ApprovalMode, Approver } from "../src/approvals.ts";
import { createRunCommand } from "../src/run-command.ts";
import type { ProcessOptions, ProcessResult } from "../src/sandbox/exec.ts";
import { createSandboxPolicy } from "../src/sandbox/policy.ts";
import { createWorkspace } from "../src/workspace.ts";
import { createWorkspaceTools } from "../src/workspace-tools.ts";
import { MARK_NAME } from "./support/process-marks.ts";
import { createTempLayout, type TempLayout } from "./support/temp-workspace.ts";

let layout: TempLayout;
beforeAll(async () => {
  layout = await createTempLayout();
});
afterAll(() => layout.remove());

/** `touch` is never allowed here: whether its file exists tells whether it ran. */
const touchArgv = (name: string) => ["touch", name];
const ran = (name: string) => existsSync(join(layout.workspace, name));

function runCommand(approval: ApprovalMode, approver?: Approver, approvalTimeoutMs?: number) {
  return createRunCommand({
    policy: createSandboxPolicy({
      workspace: createWorkspace(layout.workspace),
      allowCommands: ["echo", "sleep", "sh"],
      allowEnv: [MARK_NAME],
    }),
    sandbox: { kind: "none" },
    approval,
    ...(approver === undefined ? {} : { approver }),
    ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
  });
}

const isBlocked = (value: unknown) =>
  typeof value === "object" && value !== null && Object.getOwnPropertySymbols(value).length > 0;

describe("run_command", () => {
  it("runs an allowed program by name in the workspace, without asking", async () => {
    const approver = vi.fn<Approver>();
    const result = await runCommand("ask", approver)({ argv: ["echo", "你好"] });
    expect(result).toEqual({
      exitCode: 0,
      signal: null,
      stdout: "你好\n",
      stderr: "",
      truncated: false,
      timedOut: false,
    });
    expect(approver).not.toHaveBeenCalled();
  });

  it.each([
    ["`../bin/x`", ["../bin/echo", "x"]],
    ["an absolute path", ["/bin/echo", "x"]],
    ["a missing program", ["no-such-program-xyz"]],
  ])("answers not_allowed for %s without asking", async (_name, argv) => {
    const approver = vi.fn<Approver>();
    expect(await runCommand("ask", approver)({ argv })).toMatchObject({
      ok: false,
      error: { code: "not_allowed" },
    });
    expect(approver).not.toHaveBeenCalled();
  });

  it("answers timeout when the command outlives timeoutMs, and says so in the message", async () => {
    const result = await runCommand("deny")({
      argv: ["sh", "-c", "echo begun; sleep 100"],
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect((result as { error: { message: string } }).error.message).toContain("begun");
  });

  it("carries §6's result fields in the timeout message: timedOut, the signal, head and tail of the output", async () => {
    const result = await runCommand("deny")({
      argv: ["sh", "-c", "echo begun; yes filler | head -n 10000; echo last words; sleep 100"],
      timeoutMs: 2_000,
    });
    const message = (result as { error: { code: string; message: string } }).error.message;
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
    const fields = JSON.parse(message.slice(message.indexOf("{")));
    expect(fields).toMatchObject({
      exitCode: null,
      signal: "SIGKILL",
      stderr: "",
      truncated: true,
      timedOut: true,
    });
    expect(Object.keys(fields).sort()).toEqual(
      ["exitCode", "signal", "stderr", "stdout", "timedOut", "truncated"].sort(),
    );
    expect(fields.stdout.startsWith("begun\nfiller\n")).toBe(true);
    expect(fields.stdout.endsWith("filler\nlast words\n")).toBe(true);
  });

  it("runs the process through the runProcess it is given, with the resolved program, the workspace and the policy's environment", async () => {
    const calls: ProcessOptions[] = [];
    const fake = async (options: ProcessOptions): Promise<ProcessResult> => {
      calls.push(options);
      return {
        exitCode: 0,
        signal: null,
        stdout: "假的\n",
        stderr: "",
        truncated: false,
        timedOut: false,
      };
    };
    const command = createRunCommand({
      policy: createSandboxPolicy({
        workspace: createWorkspace(layout.workspace),
        allowCommands: ["echo"],
        env: { PATH: process.env.PATH, API_TOKEN: "t0ps3cret" },
      }),
      sandbox: { kind: "none" },
      approval: "deny",
      runProcess: fake,
    });
    expect(await command({ argv: ["echo", "x"], timeoutMs: 1_234 })).toMatchObject({
      exitCode: 0,
      stdout: "假的\n",
      timedOut: false,
    });
    expect(calls).toEqual([
      expect.objectContaining({
        argv: [expect.stringMatching(/\/echo$/), "x"],
        cwd: layout.workspace,
        env: { PATH: process.env.PATH },
        timeoutMs: 1_234,
      }),
    ]);
  });

  it.each([
    ["no argv", {}],
    ["an empty argv", { argv: [] }],
    ["argv not strings", { argv: [1, 2] }],
    ["argv a string (a shell line)", { argv: "rm -rf /" }],
    ["a timeout of 0", { argv: ["echo"], timeoutMs: 0 }],
  ])("its schema answers %s with invalid_input, before the tool runs", (_name, input) => {
    const registry = createToolRegistry(
      createWorkspaceTools({
        workspace: layout.workspace,
        allowCommands: ["echo"],
        approval: "deny",
        sandbox: { kind: "none" },
      }),
    );
    expect(registry.validate("run_command", input)).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  });
});

describe("run_command approvals for a program outside the allowlist", () => {
  it("auto: answers not_allowed, nothing runs, the run can go on", async () => {
    const result = await runCommand("auto")({ argv: touchArgv("auto.txt") });
    expect(result).toMatchObject({ ok: false, error: { code: "not_allowed" } });
    expect(ran("auto.txt")).toBe(false);
  });

  it("deny: blocks without running it", async () => {
    const result = await runCommand("deny")({ argv: touchArgv("deny.txt") });
    expect(isBlocked(result)).toBe(true);
    expect(ran("deny.txt")).toBe(false);
  });

  it("ask + deny: blocks without running it, naming the call", async () => {
    const approver = vi.fn<Approver>(async () => "deny");
    const result = await runCommand("ask", approver)({ argv: touchArgv("asked-deny.txt") });
    expect(isBlocked(result)).toBe(true);
    expect((result as { reason: string }).reason).toContain("asked-deny.txt");
    expect(ran("asked-deny.txt")).toBe(false);
    expect(approver.mock.calls[0]?.[0]).toMatchObject({
      tool: "run_command",
      argv: ["touch", "asked-deny.txt"],
      program: expect.stringMatching(/\/touch$/),
    });
  });

  it("ask with no answer in time: blocks as a refusal, nothing runs", async () => {
    const silent: Approver = () => new Promise(() => {});
    const result = await runCommand("ask", silent, 100)({ argv: touchArgv("silent.txt") });
    expect(isBlocked(result)).toBe(true);
    expect((result as { reason: string }).reason).toContain("没有应答");
    expect(ran("silent.txt")).toBe(false);
  });

  it("ask with an approver that throws or answers nonsense: blocks", async () => {
    const throwing: Approver = async () => {
      throw new Error("终端已关闭");
    };
    const nonsense = (async () => "yes") as unknown as Approver;
    expect(isBlocked(await runCommand("ask", throwing)({ argv: touchArgv("t.txt") }))).toBe(true);
    expect(isBlocked(await runCommand("ask", nonsense)({ argv: touchArgv("n.txt") }))).toBe(true);
    expect(ran("t.txt") || ran("n.txt")).toBe(false);
  });

  it("ask + allow once: runs this call and asks again next time", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const command = runCommand("ask", approver);
    await command({ argv: touchArgv("once-1.txt") });
    await command({ argv: touchArgv("once-2.txt") });
    expect(ran("once-1.txt") && ran("once-2.txt")).toBe(true);
    expect(approver).toHaveBeenCalledTimes(2);
  });

  it("ask + allow for the run: runs it and does not ask again for that program", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const command = runCommand("ask", approver);
    await command({ argv: touchArgv("run-1.txt") });
    await command({ argv: touchArgv("run-2.txt") });
    expect(ran("run-1.txt") && ran("run-2.txt")).toBe(true);
    expect(approver).toHaveBeenCalledTimes(1);
  });

  it("ask + allow for the run covers that program only: another one is asked again", async () => {
    const approver = vi.fn<Approver>(async (request) =>
      request.argv[0] === "touch" ? "allow_run" : "deny",
    );
    const command = runCommand("ask", approver);
    await command({ argv: touchArgv("scope.txt") });
    const other = await command({ argv: ["mkdir", "scope-dir"] });
    expect(isBlocked(other)).toBe(true);
    expect(approver).toHaveBeenCalledTimes(2);
    expect(ran("scope.txt")).toBe(true);
    expect(ran("scope-dir")).toBe(false);
  });

  it("authorize, then execute: an allowed-once call runs without a second question", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const command = runCommand("ask", approver);
    const input = { argv: touchArgv("authorized.txt") };
    expect(await command.authorize(input)).toBeUndefined();
    expect(await command(input)).toMatchObject({ exitCode: 0 });
    expect(approver).toHaveBeenCalledTimes(1);
    expect(ran("authorized.txt")).toBe(true);
  });
});

describe("the four tools inside runAgent", () => {
  it("lists, reads, runs, gets a refusal as an observation, then ends blocked under deny", async () => {
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "list_files", input: { pattern: "*.txt" } } },
      {
        action: { type: "tool_call", tool: "read_file", input: { path: "notes.txt", endLine: 1 } },
      },
      { action: { type: "tool_call", tool: "run_command", input: { argv: ["echo", "hi"] } } },
      {
        action: { type: "tool_call", tool: "read_file", input: { path: "../outside/secret.txt" } },
      },
      {
        action: { type: "tool_call", tool: "run_command", input: { argv: touchArgv("agent.txt") } },
      },
      { action: { type: "finish", summary: "不该到这里" } },
    ]);
    const tools = createWorkspaceTools({
      workspace: layout.workspace,
      allowCommands: ["echo"],
      approval: "deny",
      sandbox: { kind: "none" },
    });
    const result = await runAgent("看看这个仓库", provider, tools, { maxSteps: 10 });
    expect(result).toMatchObject({ status: "blocked", code: "permission_denied", steps: 5 });
    expect(ran("agent.txt")).toBe(false);
    const observations = result.messages.filter((message) => message.role === "tool");
    expect(observations.map((message) => ("content" in message ? message.content : ""))).toEqual([
      expect.stringContaining("notes.txt"),
      expect.stringContaining("第一行"),
      expect.stringContaining('"stdout":"hi\\n"'),
      expect.stringContaining("path_outside_workspace"),
      expect.stringContaining("permission_denied"),
    ]);
  });

  /** run_command asked for `touch` (outside the allowlist) once, then finish; trace kept. */
  async function runTouch(approval: ApprovalMode, approver: Approver | undefined, file: string) {
    const events: TraceEvent[] = [];
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "run_command", input: { argv: touchArgv(file) } } },
      { action: { type: "finish", summary: "完成" } },
    ]);
    const tools = createWorkspaceTools({
      workspace: layout.workspace,
      allowCommands: ["echo"],
      approval,
      ...(approver === undefined ? {} : { approver }),
      approvalTimeoutMs: 50,
      sandbox: { kind: "none" },
    });
    const result = await runAgent("建一个文件", provider, tools, { maxSteps: 5 }, undefined, {
      trace: (event) => void events.push(event),
    });
    return { result, started: events.filter((event) => event.type === "tool_started") };
  }

  it.each<[string, ApprovalMode, Approver | undefined, string]>([
    ["--approval deny", "deny", undefined, "refused-deny.txt"],
    ["ask, answered deny", "ask", async () => "deny", "refused-ask.txt"],
    ["ask, never answered", "ask", () => new Promise(() => {}), "refused-silence.txt"],
  ])(
    "a call refused under %s is neither run, counted in toolCalls nor traced as started",
    async (_case, approval, approver, file) => {
      const { result, started } = await runTouch(approval, approver, file);
      expect(result).toMatchObject({ status: "blocked", code: "permission_denied", toolCalls: 0 });
      expect(result.reason).toContain("touch");
      expect(started).toEqual([]);
      expect(ran(file)).toBe(false);
    },
  );

  it("a call allowed once is run, counted and traced once, and the approver is asked once", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const { result, started } = await runTouch("ask", approver, "allowed-once.txt");
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(started).toHaveLength(1);
    expect(approver).toHaveBeenCalledTimes(1);
    expect(ran("allowed-once.txt")).toBe(true);
  });
});
