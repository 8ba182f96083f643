import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Approver } from "@coding-agent/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTerminalApprover, parseApprovalAnswer } from "../src/approval-prompt.ts";
import { call, finish, runScripted, toolResults } from "./support/run-cli.ts";

let base: string;
let workspace: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-cli-ws-")));
  workspace = join(base, "ws");
  await mkdir(join(workspace, "src"), { recursive: true });
  await writeFile(join(workspace, "README.md"), "# 示例\n第二行\n");
  await writeFile(join(workspace, "src", "main.ts"), "console.log('hello');\n");
  await writeFile(join(base, "secret.txt"), "outside-secret\n");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function cli(turns: unknown[], flags: string[], approver?: Approver) {
  return runScripted({
    turns,
    flags,
    workspace,
    scriptDir: base,
    ...(approver === undefined ? {} : { approver }),
  });
}

describe("coding-agent run with the workspace tools", () => {
  it("lets a scripted model use the four tools as docs/contracts.md §6 specifies", async () => {
    const { code, result } = await cli(
      [
        call("list_files", {}),
        call("read_file", { path: "README.md", startLine: 2 }),
        call("search", { pattern: "hello" }),
        call("run_command", { argv: ["node", "--version"] }),
        finish,
      ],
      ["--allow-command", "node", "--sandbox", "none"],
    );
    expect(code).toBe(0);
    expect(result.status).toBe("completed");
    const [list, read, search, run] = toolResults(result);
    expect(list).toEqual({
      tool: "list_files",
      ok: true,
      value: { files: ["README.md", "src/main.ts"], truncated: false },
    });
    expect(read).toMatchObject({
      ok: true,
      value: {
        content: "第二行",
        totalLines: 2,
        truncated: false,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(search).toMatchObject({ value: { matches: ["src/main.ts:1:console.log('hello');"] } });
    expect(run).toMatchObject({
      ok: true,
      value: {
        exitCode: 0,
        signal: null,
        stdout: `${process.version}\n`,
        stderr: "",
        truncated: false,
        timedOut: false,
      },
    });
  });

  it("pages a large file's read within the run's observation cap: what the model reads is whole lines and where to go on", async () => {
    const lines = Array.from({ length: 764 }, (_, i) => `export const value${i} = "第 ${i} 行";`);
    await writeFile(join(workspace, "src", "big.ts"), `${lines.join("\n")}\n`);
    const { code, result } = await cli(
      [
        call("read_file", { path: "src/big.ts" }),
        call("echo", { text: "x".repeat(5_000) }),
        finish,
      ],
      ["--sandbox", "none", "--max-observation-chars", "3000"],
    );
    expect(code).toBe(0);
    const [shown, echoed] = result.messages.filter(
      (message: Record<string, unknown>) => message.role === "tool",
    );
    // The same value is the loop's cap: echo, which does not page, is cut to it.
    expect(echoed).toMatchObject({ truncated: true });
    expect(String(echoed?.content).length).toBeLessThanOrEqual(3_000);
    // Not cut by the loop (its marker would break the JSON), and it says what is missing.
    const page = JSON.parse(String(shown?.content)) as { content: string; nextStartLine: number };
    expect(shown?.truncated).toBe(false);
    expect(String(shown?.content).length).toBeLessThanOrEqual(3_000);
    expect(String(shown?.content).length).toBeGreaterThan(2_500);
    expect(page).toMatchObject({
      truncated: true,
      totalLines: 764,
      nextStartLine: expect.any(Number),
    });
    expect(page.content).toBe(lines.slice(0, page.nextStartLine - 1).join("\n"));
  });

  it("refuses --max-observation-chars below one page: exit 2, naming the least", async () => {
    const { code, stderr } = await cli([finish], ["--max-observation-chars", "200"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--max-observation-chars 至少为 1000");
  });

  it("returns a refusal to the model and goes on: a read outside is path_outside_workspace", async () => {
    const { code, result, stdout } = await cli(
      [
        call("read_file", { path: "../secret.txt" }),
        call("read_file", { path: join(base, "secret.txt") }),
        finish,
      ],
      [],
    );
    expect(code).toBe(0);
    expect(toolResults(result).map((r) => r.error?.code)).toEqual([
      "path_outside_workspace",
      "path_outside_workspace",
    ]);
    expect(stdout).not.toContain("outside-secret");
  });

  it("ends blocked (exit 4) under --approval deny when asked for a program outside the allowlist; nothing runs", async () => {
    const { code, result } = await cli(
      [call("run_command", { argv: ["touch", "made.txt"] }), finish],
      ["--allow-command", "node", "--approval", "deny", "--sandbox", "none"],
    );
    expect(code).toBe(4);
    expect(result).toMatchObject({ status: "blocked", code: "permission_denied" });
    expect(result.reason).toContain("touch");
    expect(existsSync(join(workspace, "made.txt"))).toBe(false);
  });

  it("treats ask without a terminal as deny", async () => {
    const { code } = await cli(
      [call("run_command", { argv: ["touch", "made.txt"] }), finish],
      ["--sandbox", "none"],
    );
    expect(code).toBe(4);
    expect(existsSync(join(workspace, "made.txt"))).toBe(false);
  });

  it("runs the program when the terminal user allows it", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const { code } = await cli(
      [call("run_command", { argv: ["touch", "made.txt"] }), finish],
      ["--sandbox", "none"],
      approver,
    );
    expect(code).toBe(0);
    expect(existsSync(join(workspace, "made.txt"))).toBe(true);
    expect(approver).toHaveBeenCalledOnce();
  });

  it("answers not_allowed under --approval auto, and the run goes on", async () => {
    const { code, result } = await cli(
      [call("run_command", { argv: ["touch", "made.txt"] }), finish],
      ["--approval", "auto", "--sandbox", "none"],
    );
    expect(code).toBe(0);
    expect(toolResults(result)[0]).toMatchObject({ ok: false, error: { code: "not_allowed" } });
  });

  it("accepts --allow-command more than once", async () => {
    const { code, result } = await cli(
      [
        call("run_command", { argv: ["node", "-e", "0"] }),
        call("run_command", { argv: ["true"] }),
        finish,
      ],
      [
        "--allow-command",
        "node",
        "--allow-command",
        "true",
        "--approval",
        "deny",
        "--sandbox",
        "none",
      ],
    );
    expect(code).toBe(0);
    expect(toolResults(result).map((r) => r.value?.exitCode)).toEqual([0, 0]);
  });

  it("--tool-timeout-ms stops a run_command still running: the model gets timeout, the command never finishes", async () => {
    // Writes late.txt 1.5 s after it starts, unless it is killed first.
    const late = "setTimeout(() => require('node:fs').writeFileSync('late.txt', 'x'), 1500)";
    const { code, result } = await cli(
      [call("run_command", { argv: ["node", "-e", late] }), finish],
      ["--allow-command", "node", "--sandbox", "none", "--tool-timeout-ms", "200"],
    );
    expect(code).toBe(0);
    expect(toolResults(result)[0]).toMatchObject({
      tool: "run_command",
      ok: false,
      error: { code: "timeout" },
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(existsSync(join(workspace, "late.txt")), "the command ran on after its timeout").toBe(
      false,
    );
  });

  it("refuses --sandbox bwrap without bwrap: exit 2, saying how to install it", async () => {
    vi.stubEnv("PATH", "/nonexistent");
    const { code, stderr } = await cli([finish], ["--sandbox", "bwrap"]);
    expect(code).toBe(2);
    expect(stderr).toContain("apt-get install -y bubblewrap");
  });

  it("warns in one Chinese line under --sandbox auto without bwrap, and runs", async () => {
    vi.stubEnv("PATH", "/nonexistent");
    const { code, stderr } = await cli([finish], []);
    expect(code).toBe(0);
    expect(stderr.split("\n").filter((line) => line.startsWith("警告："))).toHaveLength(1);
  });

  it.each([
    [["--approval", "maybe"], "--approval 只能是 ask、deny、auto"],
    [["--sandbox", "docker"], "--sandbox 只能是 auto、bwrap、none"],
    [["--workspace", "/no/such/dir"], "--workspace 必须是已存在的目录"],
  ])("exits 2 for %j with a Chinese message", async (flags, message) => {
    const { code, stderr } = await cli([finish], flags);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe("the terminal approval prompt", () => {
  it.each([
    ["y", "allow_once"],
    [" Y ", "allow_once"],
    ["是", "allow_once"],
    ["a", "allow_run"],
    ["全部", "allow_run"],
    ["", "deny"],
    ["n", "deny"],
    ["sure", "deny"],
  ] as const)("reads %j as %s", (answer, decision) => {
    expect(parseApprovalAnswer(answer)).toBe(decision);
  });

  it("asks in Chinese on its output and reads the answer from its input", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk) => {
      shown += chunk;
    });
    const approver = createTerminalApprover({ input, output });
    const pending = approver(
      {
        tool: "run_command",
        argv: ["rm", "x"],
        program: "/usr/bin/rm",
        reason: "rm 不在允许的命令里",
      },
      new AbortController().signal,
    );
    input.write("a\n");
    expect(await pending).toBe("allow_run");
    expect(shown).toContain("需要批准：rm 不在允许的命令里");
    expect(shown).toContain('["rm","x"]');
  });

  it("shows a write's files and diff instead of a command", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk) => {
      shown += chunk;
    });
    const pending = createTerminalApprover({ input, output })(
      {
        tool: "edit_file",
        argv: ["edit_file", "src/sum.js"],
        program: "/repo",
        reason: "edit_file 要修改 src/sum.js",
        paths: ["src/sum.js"],
        diff: "--- a/src/sum.js\n+++ b/src/sum.js\n@@ -1 +1 @@\n-a - b\n+a + b\n",
      },
      new AbortController().signal,
    );
    input.write("y\n");
    expect(await pending).toBe("allow_once");
    expect(shown).toContain("文件：src/sum.js");
    expect(shown).toContain("-a - b\n+a + b");
    expect(shown).not.toContain("程序：");
  });

  it("refuses when the question is abandoned (the approval timed out)", async () => {
    const controller = new AbortController();
    const approver = createTerminalApprover({
      input: new PassThrough(),
      output: new PassThrough(),
    });
    const pending = approver(
      { tool: "run_command", argv: ["rm"], program: "/usr/bin/rm", reason: "r" },
      controller.signal,
    );
    controller.abort();
    expect(await pending).toBe("deny");
  });
});
