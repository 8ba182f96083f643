/**
 * Reasoning models through the CLI (lesson 10): `--provider deepseek` and `anthropic` with
 * thinking, against imitations that apply the vendors' documented rules. A tool-using run
 * completes; its reasoning is kept in `state.jsonl` and `trace.jsonl` (masked), never on
 * stdout; killed between two steps, the run resumes and hands the kept reasoning back; its
 * replay is equal; on a terminal the reasoning streams to stderr, dimmed, unless `--quiet`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ANTHROPIC_THINKING_RULES,
  assistantsOf,
  DEEPSEEK_RULES,
  type Imitation,
  type ImitationOptions,
  startImitation,
} from "@coding-agent/providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { captureCli } from "./support/run-cli.ts";
import { BIN } from "./support/spawn-bin.ts";

// Real loopback servers and a real child process: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
const DEEPSEEK_KEY = `sk-${"D33pSeekKey0".repeat(3)}`;
const ANTHROPIC_KEY = `sk-ant-api03-${"Th1nk1ngKey".repeat(4)}`;
const SECRET = `ghp_${"ReasonedAboutIt9".repeat(3)}`;

let home: string;
let workspace: string;
const imitations: Imitation[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "thinking-home-"));
  workspace = await mkdtemp(join(tmpdir(), "thinking-ws-"));
  await writeFile(join(workspace, "notes.txt"), "第一行\n第二行\n");
});
afterEach(async () => {
  await Promise.all(imitations.splice(0).map((imitation) => imitation.close()));
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

const env = () => ({
  CODING_AGENT_HOME: home,
  PATH: process.env.PATH,
  DEEPSEEK_API_KEY: DEEPSEEK_KEY,
  ANTHROPIC_API_KEY: ANTHROPIC_KEY,
});

const readCall = (id: string) => ({
  id,
  type: "function",
  function: { name: "read_file", arguments: JSON.stringify({ path: "notes.txt" }) },
});

/**
 * DeepSeek V4 in thinking mode: two tool-calling replies, then the answer. With `secret`, the
 * first reasoning quotes a token, which the run's record masks.
 */
const deepseekReplies = (secret = SECRET) => [
  {
    content: null,
    reasoning_content: `先读文件。密钥 ${secret} 不能说。`,
    tool_calls: [readCall("c1")],
  },
  { content: null, reasoning_content: "再读一次确认。", tool_calls: [readCall("c2")] },
  { content: "文件有两行。", reasoning_content: "可以回答了。" },
];

async function imitate(options: ImitationOptions) {
  const imitation = await startImitation(options);
  imitations.push(imitation);
  return imitation;
}

const deepseekArgs = (imitation: Imitation, ...more: string[]) => [
  "run",
  "读一下 notes.txt 有几行",
  "--provider",
  "deepseek",
  "--model",
  "deepseek-v4-flash",
  "--base-url",
  imitation.baseUrl,
  "--workspace",
  workspace,
  "--finish-gate",
  "none",
  "--json",
  ...more,
];

const lines = async (runId: string, file: string) =>
  (await readFile(join(home, "runs", runId, file), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("--provider deepseek (thinking mode on by default)", HANG_GUARD, () => {
  it("completes a tool-using run; the reasoning is kept, masked, in the run's record and not on stdout", async () => {
    const imitation = await imitate({
      wire: "openai",
      replies: deepseekReplies(),
      rules: DEEPSEEK_RULES,
    });
    const { code, stdout, result } = await captureCli(deepseekArgs(imitation), env());
    expect(imitation.rejections).toEqual([]);
    expect(code).toBe(0);
    expect(result).toMatchObject({ status: "completed", summary: "文件有两行。", steps: 3 });
    // The base URL is the preset's unless given; the key came from DEEPSEEK_API_KEY.
    expect(assistantsOf(imitation, 2).map((m) => m.reasoning_content)).toEqual([
      `先读文件。密钥 ${SECRET} 不能说。`,
      "再读一次确认。",
    ]);
    expect(stdout).not.toContain('"reasoning"');
    expect(stdout).not.toContain("先读文件");
    const replies = (await lines(result.runId, "state.jsonl")).filter(
      (e) => e.type === "model_reply",
    );
    expect(replies.map((reply) => (reply.reasoning as { text?: string }).text)).toEqual([
      expect.stringContaining("先读文件。密钥 [REDACTED"),
      "再读一次确认。",
      "可以回答了。",
    ]);
    const traced = (await lines(result.runId, "trace.jsonl")).filter(
      (e) => e.type === "model_completed",
    );
    expect(traced.map((event) => event.reasoning)).toEqual([
      expect.stringContaining("先读文件"),
      "再读一次确认。",
      "可以回答了。",
    ]);
    for (const file of ["state.jsonl", "trace.jsonl"]) {
      expect(await readFile(join(home, "runs", result.runId, file), "utf8")).not.toContain(SECRET);
    }
    // The reports show it under its reply: one line on a terminal, collapsed in the HTML.
    const terminal = await captureCli(["trace", result.runId], env());
    expect(terminal.stdout).toContain("思考：再读一次确认。");
    const page = join(home, "report.html");
    expect((await captureCli(["trace", result.runId, "--html", page], env())).code).toBe(0);
    const html = await readFile(page, "utf8");
    expect(html).toMatch(
      /<details class="reasoning"><summary>思考过程<\/summary><pre>再读一次确认。<\/pre>/,
    );
    expect(html).not.toContain(SECRET);
  });

  it("killed between two steps, resumes and hands the kept reasoning back; the replay is equal", async () => {
    const { imitation, signal, runId, resumed } = await killAtStepTwoThenResume(
      // No secret: what a resume reads back from the (masked) log is then the model's words.
      { wire: "openai", replies: deepseekReplies("（无）"), rules: DEEPSEEK_RULES },
      deepseekArgs,
    );
    expect(signal).toBe("SIGKILL");
    expect(imitation.rejections).toEqual([]);
    expect(resumed.code).toBe(0);
    expect(resumed.result).toMatchObject({ status: "completed", summary: "文件有两行。" });
    // The first request after the resume carried step 1's reasoning, read back from the log.
    expect(assistantsOf(imitation, 2)[0]?.reasoning_content).toBe("先读文件。密钥 （无） 不能说。");
    expect((await captureCli(["replay", runId, "--json"], env())).code).toBe(0);
  });

  it("--reasoning-effort none turns thinking off; a bad value is a usage error naming the values", async () => {
    const imitation = await imitate({
      wire: "openai",
      replies: [{ content: "好。" }],
      rules: DEEPSEEK_RULES,
    });
    const { code } = await captureCli(deepseekArgs(imitation, "--reasoning-effort", "none"), env());
    expect(code).toBe(0);
    expect(imitation.bodies[0]?.thinking).toEqual({ type: "disabled" });
    const bad = await captureCli(deepseekArgs(imitation, "--reasoning-effort", "huge"), env());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--reasoning-effort 只能是 none、low、medium、high、max");
    const fake = await captureCli(["run", "x", "--reasoning-effort", "low"], env());
    expect(fake.code).toBe(2);
    expect(fake.stderr).toContain("--reasoning-effort 只用于真实模型");
  });

  it("without DEEPSEEK_API_KEY, names the variable", async () => {
    const imitation = await imitate({ wire: "openai", replies: [], rules: [] });
    const { code, stderr } = await captureCli(deepseekArgs(imitation), {
      CODING_AGENT_HOME: home,
      PATH: process.env.PATH,
    });
    expect(code).toBe(2);
    expect(stderr).toContain("DEEPSEEK_API_KEY");
  });
});

/**
 * Starts the CLI as a process, SIGKILLs it when the second model request arrives (step 1 is
 * logged by then), and resumes the run in this process. Returns the run id and the resume.
 */
async function killAtStepTwoThenResume(
  options: ImitationOptions,
  args: (imitation: Imitation) => string[],
) {
  let child: ReturnType<typeof spawn> | undefined;
  const imitation = await imitate({
    ...options,
    onRequest: (index) => {
      if (index !== 1) return undefined;
      child?.kill("SIGKILL");
      return "drop";
    },
  });
  child = spawn(process.execPath, [BIN, ...args(imitation)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: env(),
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
    child?.on("close", (_, killed) => resolve(killed)),
  );
  const listed = JSON.parse((await captureCli(["runs", "--json"], env())).stdout) as {
    runId: string;
  }[];
  const runId = listed[0]?.runId ?? "";
  const resumed = await captureCli(["resume", runId, "--json"], env());
  return { imitation, signal, runId, resumed };
}

/** `run` against a thinking Claude imitation, thinking on at the lowest budget. */
const claudeArgs = (imitation: Imitation) => [
  "run",
  "读一下 notes.txt",
  "--provider",
  "anthropic",
  "--model",
  "claude-thinking",
  "--base-url",
  imitation.baseUrl,
  "--reasoning-effort",
  "low",
  "--workspace",
  workspace,
  "--finish-gate",
  "none",
  "--json",
];

describe("--provider anthropic with thinking", HANG_GUARD, () => {
  const thinking = (text: string) => ({
    type: "thinking",
    thinking: text,
    signature: `sig:${text}`,
  });
  const replies = () => [
    {
      content: [
        thinking("先读。"),
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "notes.txt" } },
      ],
    },
    {
      content: [
        { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
        { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "notes.txt" } },
      ],
    },
    { content: [thinking("好。"), { type: "text", text: "两行。" }] },
  ];

  it("completes a tool-using run, thinking and redacted_thinking blocks back unchanged", async () => {
    const imitation = await imitate({
      wire: "anthropic",
      replies: replies(),
      rules: ANTHROPIC_THINKING_RULES,
    });
    const { code, result } = await captureCli(claudeArgs(imitation), env());
    expect(imitation.rejections).toEqual([]);
    expect(code).toBe(0);
    expect(result).toMatchObject({ status: "completed", summary: "两行。" });
    expect(imitation.bodies[0]).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
  });

  it("killed between two steps, resumes with the signed block back first and unchanged; the replay is equal", async () => {
    const { imitation, signal, runId, resumed } = await killAtStepTwoThenResume(
      { wire: "anthropic", replies: replies(), rules: ANTHROPIC_THINKING_RULES },
      claudeArgs,
    );
    expect(signal).toBe("SIGKILL");
    expect(imitation.rejections).toEqual([]);
    expect(resumed.code).toBe(0);
    expect(resumed.result).toMatchObject({ status: "completed", summary: "两行。" });
    // The first request after the resume: step 1's thinking block, read back from the log.
    const first = assistantsOf(imitation, 2)[0] as { content: unknown[] };
    expect(first.content[0]).toEqual(thinking("先读。"));
    expect((await captureCli(["replay", runId, "--json"], env())).code).toBe(0);
  });
});

describe("reasoning on a terminal", HANG_GUARD, () => {
  async function onTerminal(imitation: Imitation, ...more: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      deepseekArgs(imitation, ...more),
      {
        stdout: (text) => out.push(text),
        stderr: (text) => err.push(text),
        stderrIsTerminal: true,
      },
      new AbortController().signal,
      env(),
    );
    return { code, stdout: out.join(""), stderr: err.join("") };
  }

  it("streams to stderr dimmed, before the reply's text, masked; nothing of it on stdout", async () => {
    const imitation = await imitate({
      wire: "openai",
      replies: deepseekReplies(),
      rules: DEEPSEEK_RULES,
    });
    const { code, stdout, stderr } = await onTerminal(imitation);
    expect(code).toBe(0);
    expect(stderr).toContain("\u001b[2m先读文件");
    expect(stderr).not.toContain(SECRET);
    expect(stderr.indexOf("可以回答了")).toBeLessThan(stderr.indexOf("文件有两行。"));
    expect(stdout).not.toContain("先读文件");
  });

  it("--quiet shows neither reasoning nor text", async () => {
    const imitation = await imitate({
      wire: "openai",
      replies: deepseekReplies(),
      rules: DEEPSEEK_RULES,
    });
    const { code, stderr } = await onTerminal(imitation, "--quiet");
    expect(code).toBe(0);
    expect(stderr).not.toContain("先读文件");
    expect(stderr).not.toContain("文件有两行。");
  });
});
