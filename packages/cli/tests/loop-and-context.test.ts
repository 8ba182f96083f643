import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { EXIT_USAGE } from "../src/exit-codes.ts";

const SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";

async function folder(): Promise<string> {
  return mkdtemp(join(tmpdir(), "coding-agent-week5-"));
}

/** Runs the CLI in-process (its home is the tests' own, see `support/isolate.ts`). */
async function cli(argv: string[], options: { script?: unknown[] } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const args = [...argv];
  if (argv[0] === "run" && !argv.includes("--workspace")) args.push("--workspace", await folder());
  if (options.script !== undefined) {
    const path = join(await folder(), "script.json");
    await writeFile(path, JSON.stringify(options.script));
    args.push("--script", path);
  }
  const code = await runCli(
    args,
    { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
    new AbortController().signal,
  );
  return { code, stdout: out.join(""), stderr: err.join("") };
}

const call = (tool: string, input: Record<string, unknown>) => ({
  action: { type: "tool_call", tool, input },
});
const finish = { action: { type: "finish", summary: "完成" } };

describe("--loop-window and --max-context-tokens", () => {
  it("lists both in the help, in Chinese", async () => {
    const { stdout } = await cli(["--help"]);
    expect(stdout).toMatch(/--loop-window <值>\s+循环检测/);
    expect(stdout).toMatch(/--max-context-tokens <值>\s+每次模型请求的上下文 token 预算/);
  });

  it.each([
    [["--loop-window", "1"], "--loop-window 至少为 2"],
    [["--loop-window", "x"], "--loop-window 需要非负整数"],
    [["--max-context-tokens", "0"], "--max-context-tokens 至少为 1"],
    [["--max-context-tokens", "1.5"], "--max-context-tokens 需要非负整数"],
  ])("refuses %j with exit 2", async (flags, message) => {
    const { code, stderr } = await cli(["run", "任务", ...flags]);
    expect(code).toBe(EXIT_USAGE);
    expect(stderr).toContain(message);
  });

  it("stops an A-B-A-B loop with loop_detected, exit 3, naming the cycle", async () => {
    const a = call("echo", { text: "a" });
    const b = call("echo", { text: "b" });
    const { code, stdout } = await cli(["run", "任务", "--json"], { script: [a, b, a, b, finish] });
    expect(code).toBe(3);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      status: "budget_exceeded",
      code: "loop_detected",
      toolCalls: 4,
    });
    expect(result.reason).toContain('echo {"text":"a"} → echo {"text":"b"}');
  });

  it("lets a run repeat a call whose observation changes (--max-repeated-actions counts only unchanged ones)", async () => {
    const workspace = await folder();
    const ls = call("list_files", {});
    const script = [ls, call("write_file", { path: "a.txt", content: "1" }), ls, finish];
    const { code } = await cli(
      [
        "run",
        "任务",
        "--workspace",
        workspace,
        "--approval",
        "auto",
        "--max-repeated-actions",
        "1",
      ],
      { script },
    );
    expect(code).toBe(0);
  });

  it("compacts old results into artifacts that read_artifact reads back", async () => {
    const workspace = await folder();
    const lines = (name: string) =>
      Array.from({ length: 60 }, (_, n) => `${name} line ${n + 1}`).join("\n");
    for (const name of ["a", "b", "c"])
      await writeFile(join(workspace, `${name}.txt`), lines(name));
    const script = [
      call("read_file", { path: "a.txt" }),
      call("read_file", { path: "b.txt" }),
      call("read_file", { path: "c.txt" }),
      call("read_artifact", { id: "call_1-1", startLine: 2, endLine: 3 }),
      call("read_artifact", { id: "../../etc/passwd" }),
      finish,
    ];
    const { code, stdout } = await cli(
      ["run", "任务", "--workspace", workspace, "--max-context-tokens", "2500", "--json"],
      { script },
    );
    expect(code, stdout).toBe(0);
    const artifactsDir = join(JSON.parse(stdout).runDir, "artifacts");
    expect(await readFile(join(artifactsDir, "call_1-1.txt"), "utf8")).toMatch(
      /^a line 1\na line 2\n/,
    );
    const tools = JSON.parse(stdout).messages.filter((m: { role: string }) => m.role === "tool");
    expect(JSON.parse(tools[3].content)).toMatchObject({ content: "a line 2\na line 3" });
    expect(tools[4]).toMatchObject({ ok: false, error: { code: "invalid_input" } });
  });

  it("stops context_exhausted when a budget leaves room only for less than the pinned parts", async () => {
    const script = [call("echo", { text: "x".repeat(3_000) }), finish];
    const { code, stdout } = await cli(["run", "任务", "--max-context-tokens", "200", "--json"], {
      script,
    });
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toMatchObject({ code: "context_exhausted" });
  });

  it("keeps a large command output whole in an artifact, redacted, and shows head, tail and id", async () => {
    const workspace = await folder();
    const program = `for (let i = 0; i < 5000; i++) console.log("row " + i + " " + "y".repeat(30)); console.log("the key is ${SECRET} ok"); console.log("last row")`;
    const script = [call("run_command", { argv: ["node", "-e", program] }), finish];
    const { code, stdout } = await cli(
      [
        "run",
        "任务",
        "--workspace",
        workspace,
        "--allow-command",
        "node",
        "--sandbox",
        "none",
        "--max-context-tokens",
        "100000",
        "--json",
      ],
      { script },
    );
    expect(code).toBe(0);
    const artifactsDir = join(JSON.parse(stdout).runDir, "artifacts");
    const [file] = await readdir(artifactsDir);
    const text = await readFile(join(artifactsDir, file ?? ""), "utf8");
    expect(text.split("\n").slice(0, 2)).toEqual([
      `row 0 ${"y".repeat(30)}`,
      `row 1 ${"y".repeat(30)}`,
    ]);
    expect(text).toContain("row 4999");
    expect(text).toContain("last row");
    expect(text).not.toContain(SECRET);
    const observation = JSON.parse(stdout).messages[2].content as string;
    expect(observation.length).toBeLessThanOrEqual(8_000);
    expect(observation).toContain(`"artifact":"${file?.replace(/\.txt$/, "")}"`);
    expect(observation, observation.slice(-600)).toContain("last row");
    expect(stdout).not.toContain(SECRET);
  });
});
