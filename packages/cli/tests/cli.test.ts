import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { EXIT_USAGE, exitCodeFor } from "../src/exit-codes.ts";
import { EMPTY_WORKSPACE } from "./support/isolate.ts";
import { spawnBin } from "./support/spawn-bin.ts";

/** Runs the CLI in-process; a run without `--workspace` gets an empty one. */
async function cli(argv: string[], signal = new AbortController().signal) {
  const out: string[] = [];
  const err: string[] = [];
  const workspace = argv[0] === "run" && !argv.includes("--workspace");
  const code = await runCli(
    workspace ? [...argv, "--workspace", EMPTY_WORKSPACE] : argv,
    { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
    signal,
  );
  return { code, stdout: out.join(""), stderr: err.join("") };
}

async function scriptFile(turns: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "coding-agent-cli-"));
  const path = join(dir, "script.json");
  await writeFile(path, JSON.stringify(turns));
  return path;
}

describe("runCli", () => {
  it("exits 0 and prints the summary when the default script completes", async () => {
    const { code, stdout } = await cli(["run", "打个招呼"]);
    expect(code).toBe(0);
    expect(stdout).toContain("状态：completed");
    expect(stdout).toContain("摘要：已完成：打个招呼");
  });

  it("prints the whole result as JSON with --json", async () => {
    const { code, stdout } = await cli(["run", "打个招呼", "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ status: "completed", code: "finished", steps: 2, toolCalls: 1 });
    expect(result.messages[2]).toMatchObject({
      role: "tool",
      tool: "echo",
      ok: true,
      content: "打个招呼",
    });
  });

  it("exits 1 when the run fails (a scripted call to an unknown tool)", async () => {
    const path = await scriptFile([{ action: { type: "tool_call", tool: "rm_rf", input: {} } }]);
    const { code, stdout } = await cli(["run", "任务", "--script", path]);
    expect(code).toBe(1);
    expect(stdout).toContain("未知工具：rm_rf");
  });

  it("exits 3 when a budget is exceeded", async () => {
    const { code, stdout } = await cli(["run", "任务", "--max-steps", "1", "--json"]);
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toMatchObject({
      status: "budget_exceeded",
      code: "max_steps",
      steps: 1,
    });
  });

  it("passes every limit flag to the run", async () => {
    const path = await scriptFile([
      { action: { type: "message", content: "同一句" } },
      { action: { type: "message", content: "同一句" } },
    ]);
    const { code, stdout } = await cli([
      "run",
      "任务",
      "--script",
      path,
      "--max-repeated-actions",
      "1",
      "--json",
    ]);
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toMatchObject({ code: "repeated_action", steps: 2 });
  });

  it("writes a bad echo input back as invalid_input and stops after --max-tool-errors in a row", async () => {
    const path = await scriptFile([
      { action: { type: "tool_call", tool: "echo", input: { txt: "a" } } },
      { action: { type: "tool_call", tool: "echo", input: { text: 1 } } },
      { action: { type: "finish", summary: "不该到这里" } },
    ]);
    const { code, stdout } = await cli([
      "run",
      "任务",
      "--script",
      path,
      "--max-tool-errors",
      "2",
      "--json",
    ]);
    expect(code).toBe(3);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ code: "max_tool_errors", steps: 2, toolCalls: 0 });
    expect(result.messages[2]).toMatchObject({
      role: "tool",
      tool: "echo",
      ok: false,
      error: { code: "invalid_input" },
    });
  });

  it("rejects --max-tool-errors 0 as a usage error", async () => {
    const { code, stderr } = await cli(["run", "任务", "--max-tool-errors", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--max-tool-errors 至少为 1");
  });

  describe("time limits (tiny real delays; outcomes only)", () => {
    const sleep = (ms: number) => ({
      action: { type: "tool_call", tool: "sleep", input: { ms } },
    });
    const finish = { action: { type: "finish", summary: "完成" } };
    /** Runs `turns` as the fake model's script with `flags`, as JSON. */
    const runScript = async (turns: unknown[], ...flags: string[]) =>
      cli(["run", "任务", "--script", await scriptFile(turns), ...flags, "--json"]);

    it("--tool-timeout-ms: a slow tool comes back to the model as a timeout error and the run completes", async () => {
      const { code, stdout } = await runScript([sleep(60_000), finish], "--tool-timeout-ms", "20");
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
      expect(result.messages[2]).toMatchObject({
        role: "tool",
        tool: "sleep",
        ok: false,
        error: { code: "timeout" },
      });
    });

    it("--model-timeout-ms: a slow model call ends the run budget_exceeded / model_timeout, exit 3", async () => {
      const { code, stdout } = await runScript(
        [{ ...finish, delayMs: 60_000 }],
        "--model-timeout-ms",
        "20",
        "--max-retries",
        "0",
      );
      expect(code).toBe(3);
      expect(JSON.parse(stdout)).toMatchObject({
        status: "budget_exceeded",
        code: "model_timeout",
      });
    });

    it("--model-timeout-ms: a timed-out call is retried once; a second timeout in a row ends the run", async () => {
      const slow = { ...finish, delayMs: 60_000 };
      const retried = await runScript([slow, finish], "--model-timeout-ms", "20");
      expect(retried.code).toBe(0);
      expect(JSON.parse(retried.stdout)).toMatchObject({ status: "completed", steps: 1 });

      const twice = await runScript([slow, slow, finish], "--model-timeout-ms", "20");
      expect(twice.code).toBe(3);
      expect(JSON.parse(twice.stdout)).toMatchObject({ code: "model_timeout" });
    });

    it("--max-duration-ms: a call still running when the run's time is up is aborted, exit 3", async () => {
      const { code, stdout } = await runScript([sleep(60_000), finish], "--max-duration-ms", "200");
      expect(code).toBe(3);
      const result = JSON.parse(stdout);
      expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
      expect(result.messages[2]).toMatchObject({ ok: false, error: { code: "max_duration" } });
    });

    it.each([
      ["--model-timeout-ms", "0", "--model-timeout-ms 至少为 1"],
      ["--tool-timeout-ms", "0", "--tool-timeout-ms 至少为 1"],
      ["--tool-timeout-ms", "1.5", "--tool-timeout-ms 需要非负整数"],
    ])("rejects %s %s as a usage error", async (flag, value, message) => {
      const { code, stderr } = await cli(["run", "任务", flag, value]);
      expect(code).toBe(2);
      expect(stderr).toContain(message);
    });
  });

  it("exits 130 when the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const { code, stdout } = await cli(["run", "任务", "--json"], controller.signal);
    expect(code).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ status: "cancelled", steps: 0 });
  });

  it.each([
    [["deploy", "x"], "未知命令：deploy"],
    [["run", "x", "--max-step", "3"], "不认识的选项：--max-step。可用选项：--max-steps、"],
    [["run", "x", "--script"], "选项 --script 需要一个值"],
    [["run", "x", "--json=yes"], "选项 --json 不接受值"],
    [["run", "x", "--max-steps", "abc"], "--max-steps 需要非负整数"],
    [["run", "x", "--max-steps", "-1"], "--max-steps"],
    [["run", "x", "--max-repeated-actions", "0"], "--max-repeated-actions 至少为 1"],
    [["run"], "缺少目标"],
    [["run", "a", "b"], "只能给一个目标"],
    [["run", "   "], "目标不能为空"],
  ])("exits 2 for %j with a Chinese message and the usage", async (argv, message) => {
    const { code, stderr } = await cli(argv);
    expect(code).toBe(EXIT_USAGE);
    expect(stderr).toContain(message);
    expect(stderr).toContain("用法：coding-agent run");
  });

  it("exits 2 naming the file when the script file does not exist", async () => {
    const { code, stderr } = await cli([
      "run",
      "x",
      "--script",
      join(tmpdir(), "no-such-script.json"),
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain("无法读取脚本文件");
    expect(stderr).toContain("no-such-script.json");
  });

  it("exits 2 naming the file and the field when the script is invalid", async () => {
    const path = await scriptFile([
      { action: { type: "finish", summary: "x" } },
      { error: "x", delayMs: -5 },
    ]);
    const { code, stderr } = await cli(["run", "x", "--script", path]);
    expect(code).toBe(2);
    expect(stderr).toContain(`脚本文件 ${path} 无效：[1].delayMs: `);
  });

  it("names the whole script (根) and says what is wrong in Chinese when it is not an array", async () => {
    const path = await scriptFile({ action: { type: "finish", summary: "x" } });
    const { code, stderr } = await cli(["run", "x", "--script", path]);
    expect(code).toBe(2);
    expect(stderr).toContain(`脚本文件 ${path} 无效：(根): 无效输入：期望 数组，实际接收 object`);
  });

  it("exits 2 naming the file when the script is not JSON", async () => {
    const dir = await mkdtemp(join(tmpdir(), "coding-agent-cli-"));
    const path = join(dir, "broken.json");
    await writeFile(path, "[{");
    const { code, stderr } = await cli(["run", "x", "--script", path]);
    expect(code).toBe(2);
    expect(stderr).toContain(`脚本文件 ${path} 不是合法 JSON`);
  });

  it("exits 2 with the usage when no command is given", async () => {
    const { code, stderr } = await cli([]);
    expect(code).toBe(2);
    expect(stderr).toContain("缺少命令。可用命令：run、resume、replay、runs、trace、eval、help");
  });

  it("prints the usage and exits 0 for help", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      "退出码：0 完成 · 1 失败 · 2 用法错误 · 3 超出预算 · 4 被阻止 · 130 已取消",
    );
  });
});

describe("exitCodeFor", () => {
  it.each([
    ["completed", 0],
    ["failed", 1],
    ["budget_exceeded", 3],
    ["blocked", 4],
    ["cancelled", 130],
  ] as const)("maps %s to %i", (status, code) => {
    expect(exitCodeFor(status)).toBe(code);
  });
});

// Each case starts node and strips the sources' types: over 20 s on a busy machine. The
// timeout only turns a hang into a failure. A Ctrl-C that does not cancel fails by its
// assertions, not by the timeout: the scripted 30 s sleep then completes with exit 0.
describe("the coding-agent bin", { timeout: 120_000 }, () => {
  it("runs from the bin without a build and exits 0 with JSON on stdout", async () => {
    const { code, stdout } = await spawnBin(["run", "你好", "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: "completed", summary: "已完成：你好" });
  });

  it("exits 2 with a Chinese message for a bad flag", async () => {
    const { code, stderr, stdout } = await spawnBin(["run", "你好", "--verbose"]);
    expect(code).toBe(2);
    expect(stderr).toContain("不认识的选项：--verbose");
    expect(stdout).toBe("");
  });

  it("ends cancelled with exit 130 on the first Ctrl-C during a slow tool", async () => {
    // Interrupted once the command has started (it writes its marker first): never before.
    const dir = await mkdtemp(join(tmpdir(), "coding-agent-slow-"));
    const marker = join(dir, "started");
    const slow = `require("fs").writeFileSync(${JSON.stringify(marker)}, ""); setTimeout(() => {}, 30000)`;
    const path = await scriptFile([
      { action: { type: "tool_call", tool: "run_command", input: { argv: ["node", "-e", slow] } } },
      { action: { type: "finish", summary: "不该到这里" } },
    ]);
    const { code, stdout, stderr } = await spawnBin(
      ["run", "慢任务", "--script", path, "--allow-command", "node", "--sandbox", "none", "--json"],
      { interruptWhenExists: marker },
    );
    expect(code).toBe(130);
    expect(stderr).toContain("收到 Ctrl-C");
    expect(JSON.parse(stdout)).toMatchObject({ status: "cancelled", toolCalls: 1 });
  });

  it("ends cancelled with exit 130 on Ctrl-C during a slow model call", async () => {
    const path = await scriptFile([{ action: { type: "finish", summary: "x" }, delayMs: 30_000 }]);
    const { code, stdout } = await spawnBin(["run", "慢模型", "--script", path, "--json"], {
      interruptWhenStarted: true,
    });
    expect(code).toBe(130);
    expect(JSON.parse(stdout)).toMatchObject({ status: "cancelled", steps: 0 });
  });
});
