import {
  type FakeModelServer,
  type FakeTurn,
  startFakeModelServer,
} from "@coding-agent/providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { EMPTY_WORKSPACE } from "./support/isolate.ts";
import { spawnBin } from "./support/spawn-bin.ts";

const OPENAI_KEY = `sk-proj-${"CliTest0".repeat(4)}`;
const ANTHROPIC_KEY = `sk-ant-api03-${"CliTest0".repeat(4)}`;

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The conversation of the e2e runs: the model asks for `echo` once, then answers in text. */
const ECHO_THEN_TEXT: FakeTurn[] = [
  { calls: [{ name: "echo", input: { text: "你好" } }] },
  { text: "我说了：你好" },
];

async function serve(script: readonly FakeTurn[], apiKey: string) {
  const server = await startFakeModelServer({ script, apiKey });
  servers.push(server);
  return server;
}

async function cli(argv: string[], env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    [...argv, "--workspace", EMPTY_WORKSPACE],
    { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
    new AbortController().signal,
    { CODING_AGENT_HOME: process.env.CODING_AGENT_HOME, ...env },
  );
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** `coding-agent run 你好` against the OpenAI-compatible loopback server, as JSON. */
const openaiRun = (server: FakeModelServer, ...more: string[]) => [
  "run",
  "你好",
  "--provider",
  "openai",
  "--model",
  "m",
  "--base-url",
  server.openaiBaseUrl,
  "--json",
  ...more,
];

describe("coding-agent run against a real model API (loopback server)", () => {
  it("completes with --provider openai: echo once, then the model's text as the summary", async () => {
    const server = await serve(ECHO_THEN_TEXT, OPENAI_KEY);
    const { code, stdout, stderr } = await cli(openaiRun(server), { OPENAI_API_KEY: OPENAI_KEY });
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ status: "completed", summary: "我说了：你好", toolCalls: 1 });
    expect(result.messages).toContainEqual(
      expect.objectContaining({ role: "tool", tool: "echo", ok: true, content: "你好" }),
    );
    expect(server.rejected).toEqual([]);
    expect(server.requests.map((request) => request.path)).toEqual([
      "/v1/chat/completions",
      "/v1/chat/completions",
    ]);
    expect(stderr).toContain(`openai · m · ${server.openaiBaseUrl}`);
    expect(stdout + stderr).not.toContain(OPENAI_KEY);
  });

  it("completes with --provider anthropic the same way, through /v1/messages", async () => {
    const server = await serve(ECHO_THEN_TEXT, ANTHROPIC_KEY);
    const { code, stdout } = await cli(
      [
        "run",
        "你好",
        "--provider",
        "anthropic",
        "--model",
        "c",
        "--base-url",
        server.anthropicBaseUrl,
      ],
      { ANTHROPIC_API_KEY: ANTHROPIC_KEY },
    );
    expect(code).toBe(0);
    expect(stdout).toContain("摘要：我说了：你好");
    expect(server.rejected).toEqual([]);
    expect(server.requests.map((request) => request.path)).toEqual([
      "/v1/messages",
      "/v1/messages",
    ]);
    expect(server.requests[0]?.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
  });

  it("takes the base URL from OPENAI_BASE_URL when --base-url is not given", async () => {
    const server = await serve([{ text: "好" }], OPENAI_KEY);
    const { code } = await cli(["run", "你好", "--provider", "openai", "--model", "m"], {
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: server.openaiBaseUrl,
    });
    expect(code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it("prefers --base-url over ANTHROPIC_BASE_URL", async () => {
    const server = await serve([{ text: "好" }], ANTHROPIC_KEY);
    const { code } = await cli(
      [
        "run",
        "你好",
        "--provider",
        "anthropic",
        "--model",
        "c",
        "--base-url",
        server.anthropicBaseUrl,
      ],
      { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: "http://127.0.0.1:1" },
    );
    expect(code).toBe(0);
  });

  it("exits 1 with provider_error when the API rejects the call, and masks the key it echoes", async () => {
    const server = await serve(
      [{ status: 400, body: { error: { message: `bad request for key ${OPENAI_KEY}` } } }],
      OPENAI_KEY,
    );
    const { code, stdout } = await cli(
      ["run", "你好", "--provider", "openai", "--model", "m", "--base-url", server.openaiBaseUrl],
      { OPENAI_API_KEY: OPENAI_KEY },
    );
    expect(code).toBe(1);
    expect(stdout).toContain("provider_error");
    expect(stdout).toContain("HTTP 400");
    expect(stdout).not.toContain(OPENAI_KEY);
  });
});

describe("coding-agent run retries a model call that failed retryable", () => {
  it("completes after one HTTP 503 (default --max-retries 2)", async () => {
    const server = await serve(
      [{ status: 503, body: { error: { message: "overloaded" } } }, { text: "好了" }],
      OPENAI_KEY,
    );
    const { code, stdout } = await cli(openaiRun(server), { OPENAI_API_KEY: OPENAI_KEY });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: "completed", summary: "好了", steps: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry with --max-retries 0, nor an HTTP 400 at all", async () => {
    const busy = await serve(
      [{ status: 503, body: { error: { message: "overloaded" } } }, { text: "好了" }],
      OPENAI_KEY,
    );
    const once = await cli(openaiRun(busy, "--max-retries", "0"), { OPENAI_API_KEY: OPENAI_KEY });
    expect(once.code).toBe(1);
    expect(JSON.parse(once.stdout)).toMatchObject({ code: "provider_error" });
    expect(busy.requests).toHaveLength(1);

    const bad = await serve(
      [{ status: 400, body: { error: { message: "bad model" } } }, { text: "好了" }],
      OPENAI_KEY,
    );
    const refused = await cli(openaiRun(bad), { OPENAI_API_KEY: OPENAI_KEY });
    expect(refused.code).toBe(1);
    expect(bad.requests).toHaveLength(1);
  });

  it("refuses a --max-retries that is not a small count (exit 2)", async () => {
    for (const value of ["-1", "x", "11"]) {
      const { code, stderr } = await cli(["run", "你好", "--max-retries", value], {});
      expect(code).toBe(2);
      expect(stderr).toContain("--max-retries");
    }
  });
});

describe("coding-agent run: provider usage errors (exit 2)", () => {
  const withKey = { OPENAI_API_KEY: OPENAI_KEY };
  it.each([
    [
      "a missing OPENAI_API_KEY",
      ["--provider", "openai", "--model", "m"],
      {},
      "需要环境变量 OPENAI_API_KEY",
    ],
    [
      "a missing ANTHROPIC_API_KEY (another backend's key does not count)",
      ["--provider", "anthropic", "--model", "c"],
      withKey,
      "需要环境变量 ANTHROPIC_API_KEY",
    ],
    ["a missing model", ["--provider", "openai"], withKey, "--provider openai 需要 --model"],
    [
      "an unknown provider",
      ["--provider", "gemini-pro"],
      withKey,
      "--provider 只能是 fake、openai、anthropic、deepseek、qwen、kimi、glm、gemini、openrouter",
    ],
    ["a key given as a flag", ["--provider", "openai", "--api-key", "sk-x"], withKey, "--api-key"],
    [
      "a script for a real model",
      ["--provider", "openai", "--model", "m", "--script", "s.json"],
      withKey,
      "--script 只用于 --provider fake",
    ],
    ["a model for the fake", ["--model", "m"], withKey, "--model 只用于真实模型"],
    [
      "a base URL that is not http(s)",
      ["--provider", "openai", "--model", "m", "--base-url", "ftp://host/v1"],
      withKey,
      "--base-url 无效",
    ],
  ])("rejects %s, naming it in Chinese", async (_name, flags, env, message) => {
    const { code, stderr, stdout } = await cli(["run", "你好", ...flags], env);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stdout).toBe("");
  });
});

describe("the coding-agent bin against an OpenAI-compatible loopback server", {
  timeout: 120_000,
}, () => {
  it("completes from the command line with the key only in the environment", async () => {
    const server = await serve(ECHO_THEN_TEXT, OPENAI_KEY);
    const { code, stdout, stderr } = await spawnBin(openaiRun(server), {
      env: { ...process.env, OPENAI_API_KEY: OPENAI_KEY },
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: "completed", summary: "我说了：你好" });
    expect(stdout + stderr).not.toContain(OPENAI_KEY);
    expect(server.rejected).toEqual([]);
  });
});
