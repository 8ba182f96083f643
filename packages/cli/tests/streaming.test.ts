/**
 * Lesson 38 through the CLI: runs over `--provider openai` and `anthropic` stream their
 * replies (tool calls assembled from deltas) and end as the same runs not streamed; a cut
 * stream is retried; `Retry-After` is waited within the time budget; `--fallback-model`
 * answers once the first model keeps failing, and that run resumes and replays; a key
 * planted in a malformed event is never printed; the reply text shows on stderr only when
 * stderr is a terminal, masked even when a secret arrives split in two.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FakeModelServer,
  type FakeModelServerOptions,
  type FakeTurn,
  startFakeModelServer,
} from "@coding-agent/providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { startCollector } from "./support/otlp-collector.ts";
import { captureCli } from "./support/run-cli.ts";

// A real loopback API: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
const OPENAI_KEY = `sk-proj-${"Stream11".repeat(4)}`;
const ANTHROPIC_KEY = `sk-ant-api03-${"Stream22".repeat(4)}`;

let home: string;
let workspace: string;
const servers: FakeModelServer[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "stream-home-"));
  workspace = await mkdtemp(join(tmpdir(), "stream-ws-"));
  await writeFile(join(workspace, "notes.txt"), "第一行\n第二行\n");
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

type Api = "openai" | "anthropic";
const KEYS = { openai: OPENAI_KEY, anthropic: ANTHROPIC_KEY };

async function serve(
  api: Api,
  script: readonly FakeTurn[],
  more: Partial<FakeModelServerOptions> = {},
) {
  const server = await startFakeModelServer({ script, apiKey: KEYS[api], ...more });
  servers.push(server);
  return server;
}

const env = () => ({
  CODING_AGENT_HOME: home,
  PATH: process.env.PATH,
  OPENAI_API_KEY: OPENAI_KEY,
  ANTHROPIC_API_KEY: ANTHROPIC_KEY,
});

/** `coding-agent run <goal> --provider <api> --model main-model --base-url … --json …`. */
function runArgs(api: Api, server: FakeModelServer, ...more: string[]) {
  return [
    "run",
    "读一下 notes.txt",
    "--provider",
    api,
    "--model",
    "main-model",
    "--base-url",
    api === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
    "--workspace",
    workspace,
    "--json",
    ...more,
  ];
}

const cli = (argv: string[]) => captureCli(argv, env());

/** The model each request asked for, in order. */
const modelsAsked = (server: FakeModelServer) =>
  server.requests.map((request) => (request.body as { model?: string }).model);

/** What a replay must give back as the original had it (the contract's fields). */
function outcome(result: Record<string, unknown>) {
  const { status, code, steps, toolCalls, messages, usage, costUsd, model } = result;
  return { status, code, steps, toolCalls, messages, usage, costUsd, model };
}

/** A conversation with Chinese text and two tool calls in one reply, then a finish. */
const conversation = (stream: { chunkBytes?: number } = {}): FakeTurn[] => [
  {
    text: "我先读文件，再回显一句：",
    calls: [
      { name: "read_file", input: { path: "notes.txt" } },
      { name: "echo", input: { text: "读到了 “第一行”" } },
    ],
    usage: { inputTokens: 50, outputTokens: 20 },
    stream,
  },
  { text: "文件有两行：第一行、第二行。", usage: { inputTokens: 80, outputTokens: 12 }, stream },
];

describe.each(["openai", "anthropic"] as const)("--provider %s streams", HANG_GUARD, (api) => {
  it("to completion with tool calls, ending as the same run not streamed", async () => {
    const streamedServer = await serve(api, conversation({ chunkBytes: 5 }));
    const streamed = await cli(runArgs(api, streamedServer));
    expect(streamed.code).toBe(0);
    expect(streamed.result).toMatchObject({
      status: "completed",
      summary: "文件有两行：第一行、第二行。",
      steps: 2,
      toolCalls: 2,
      usage: { inputTokens: 130, outputTokens: 32 },
      model: "main-model",
    });
    expect(streamedServer.rejected).toEqual([]);
    expect(
      streamedServer.requests.every(
        (request) => (request.body as { stream?: unknown }).stream === true,
      ),
    ).toBe(true);
    const tools = streamed.result.messages.filter((m: { role: string }) => m.role === "tool");
    expect(tools.map((m: { ok: boolean }) => m.ok)).toEqual([true, true]);
    expect(tools[1].content).toContain("读到了 “第一行”");

    // The same conversation from a server without SSE: the same run, message for message.
    const plainServer = await serve(api, conversation(), { sse: false });
    const plain = await cli(runArgs(api, plainServer));
    expect(plain.code).toBe(0);
    expect(outcome(plain.result)).toEqual(outcome(streamed.result));
    // Not a terminal: nothing of the reply text on stderr (tests and --json stay as they were).
    expect(streamed.stderr).not.toContain("我先读文件");
  });

  it("retries a stream cut mid-way and uses only the whole reply", async () => {
    const server = await serve(api, [
      {
        text: "这是被截断的半截回复，不应出现",
        stream: { cutAfter: { events: 3, how: "destroy" } },
      },
      { text: "完整的回复" },
    ]);
    const { code, result } = await cli(runArgs(api, server));
    expect(code).toBe(0);
    expect(result).toMatchObject({ status: "completed", summary: "完整的回复", steps: 1 });
    expect(JSON.stringify(result.messages)).not.toContain("半截");
    expect(server.requests).toHaveLength(2);
  });

  it("a malformed event ends the run provider_error, exit 1, the planted key never printed", async () => {
    const planted = `{"text": "${KEYS[api]}" and ${OPENAI_KEY} broken`;
    const server = await serve(api, [
      { text: "开始", stream: { malformed: { afterEvents: 2, data: planted } } },
      { text: "不应被请求" },
    ]);
    const { code, stdout, stderr, result } = await cli(runArgs(api, server));
    expect(code).toBe(1);
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(result.reason).toContain("无法解析");
    expect(result.reason).toContain("broken");
    for (const key of [OPENAI_KEY, ANTHROPIC_KEY]) {
      expect(stdout).not.toContain(key);
      expect(stderr).not.toContain(key);
    }
    // Not retried: a malformed event does not get better by asking again.
    expect(server.requests).toHaveLength(1);
    const runDir = join(home, "runs", result.runId);
    for (const file of ["state.jsonl", "trace.jsonl"]) {
      const text = await readFile(join(runDir, file), "utf8");
      expect(text).not.toContain(OPENAI_KEY);
      expect(text).not.toContain(ANTHROPIC_KEY);
    }
  });
});

describe("Retry-After through the CLI", HANG_GUARD, () => {
  it.each([
    ["seconds", { seconds: 1 }],
    ["an HTTP date", { seconds: 1, as: "date" as const }],
  ])("a 429 with Retry-After as %s is waited, then the run completes", async (_, retryAfter) => {
    const server = await serve("openai", [
      { status: 429, body: { error: { message: "Rate limit reached" } }, retryAfter },
      { text: "等过之后完成" },
    ]);
    const { code, result } = await cli(runArgs("openai", server));
    expect(code).toBe(0);
    expect(result).toMatchObject({ status: "completed", summary: "等过之后完成" });
    const trace = await readFile(join(home, "runs", result.runId, "trace.jsonl"), "utf8");
    const retry = trace
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .find((event) => event.type === "model_retry");
    expect(retry.delayMs).toBeGreaterThanOrEqual(1_000);
  });

  it("a Retry-After past the time budget is not waited: exit 3, max_duration", async () => {
    const server = await serve("anthropic", [
      {
        status: 503,
        body: { type: "error", error: { type: "overloaded_error", message: "busy" } },
        retryAfter: { seconds: 60 },
      },
      { text: "不应被请求" },
    ]);
    const { code, result } = await cli(runArgs("anthropic", server, "--max-duration-ms", "20000"));
    expect(code).toBe(3);
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_duration" });
    expect(result.reason).toContain("Retry-After");
    expect(server.requests).toHaveLength(1);
    // No wait was scheduled (a wait up to the budget's end would be a model_retry event).
    const trace = await readFile(join(home, "runs", result.runId, "trace.jsonl"), "utf8");
    expect(trace).not.toContain('"model_retry"');
  });
});

describe("--fallback-model", HANG_GUARD, () => {
  /** A --pricing file where the first model costs ten times the fallback (USD 10 and 1 per MTok). */
  async function tenfoldPricier(): Promise<string> {
    const prices = join(home, "pricing.json");
    const table = {
      "main-model": { inputPerMTok: 10, outputPerMTok: 10 },
      "backup-model": { inputPerMTok: 1, outputPerMTok: 1 },
    };
    await writeFile(prices, JSON.stringify(table));
    return prices;
  }

  /** Two different 503s (so the retries run out), then the fallback's two replies. */
  const failingThenFallback = (): FakeTurn[] => [
    { status: 503, body: { error: { message: "overloaded #1" } } },
    { status: 503, body: { error: { message: "overloaded #2" } } },
    { calls: [{ name: "echo", input: { text: "备用模型在回答" } }] },
    { text: "备用模型完成" },
  ];

  it("answers once the --max-retries + 1 attempts at the first model failed; result and trace name it", async () => {
    const server = await serve("openai", failingThenFallback());
    const { code, result } = await cli(
      runArgs("openai", server, "--max-retries", "1", "--fallback-model", "backup-model"),
    );
    expect(code).toBe(0);
    expect(result).toMatchObject({
      status: "completed",
      summary: "备用模型完成",
      model: "backup-model",
    });
    // Two attempts at the first model, then the fallback for the rest of the run.
    expect(modelsAsked(server)).toEqual([
      "main-model",
      "main-model",
      "backup-model",
      "backup-model",
    ]);
    const runDir = join(home, "runs", result.runId);
    const trace = (await readFile(join(runDir, "trace.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(trace.filter((event) => event.fallbackModel !== undefined)).toEqual([
      expect.objectContaining({
        type: "model_retry",
        step: 1,
        attempt: 2,
        fallbackModel: "backup-model",
      }),
    ]);
    expect(
      trace.filter((event) => event.type === "model_completed").map((event) => event.model),
    ).toEqual(["backup-model", "backup-model"]);
    const state = (await readFile(join(runDir, "state.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(state[0].options.provider).toMatchObject({ fallbackModel: "backup-model" });
    expect(state.filter((e) => e.type === "model_reply").map((e) => e.model)).toEqual([
      "backup-model",
      "backup-model",
    ]);

    // Replayed offline: the same result, the same model named, the same exit code.
    const replayed = await cli(["replay", result.runId, "--json"]);
    expect(replayed.code).toBe(0);
    expect(outcome(replayed.result)).toEqual(outcome(result));
  });

  it("prices the fallback's calls at the fallback's own price, recorded for a resume", async () => {
    const server = await serve("openai", [
      { status: 503, body: { error: { message: "overloaded #1" } } },
      { status: 503, body: { error: { message: "overloaded #2" } } },
      { text: "备用模型完成", usage: { inputTokens: 1_000_000, outputTokens: 0 } },
    ]);
    const prices = await tenfoldPricier();
    const flags = ["--max-retries", "1", "--fallback-model", "backup-model", "--pricing", prices];
    const { code, result } = await cli(runArgs("openai", server, ...flags));
    expect(code).toBe(0);
    expect(result).toMatchObject({ model: "backup-model", costUsd: 1 });
    const state = await readFile(join(home, "runs", result.runId, "state.jsonl"), "utf8");
    expect(JSON.parse(state.split("\n")[0] ?? "").options).toMatchObject({
      price: { inputPerMTok: 10 },
      fallbackPrice: { inputPerMTok: 1 },
    });
  });

  it("a replay and a resume price the fallback's recorded replies at its recorded price", async () => {
    const million = { inputTokens: 1_000_000, outputTokens: 0 };
    const server = await serve("openai", [
      { status: 503, body: { error: { message: "overloaded #1" } } },
      { status: 503, body: { error: { message: "overloaded #2" } } },
      { calls: [{ name: "echo", input: { text: "备用模型在回答" } }], usage: million },
      { text: "备用模型完成", usage: million },
      // What the resumed run asks, after the recorded step 1: the first model again.
      { text: "主模型恢复后完成", usage: million },
    ]);
    const prices = await tenfoldPricier();
    const flags = ["--max-retries", "1", "--fallback-model", "backup-model", "--pricing", prices];
    const { result } = await cli(runArgs("openai", server, ...flags));
    expect(result).toMatchObject({ status: "completed", model: "backup-model", costUsd: 2 });
    const stateFile = join(home, "runs", result.runId, "state.jsonl");
    const lines = (await readFile(stateFile, "utf8")).trim().split("\n");
    const replies = lines.map((line) => JSON.parse(line)).filter((e) => e.type === "model_reply");
    expect(replies.map((reply) => reply.fallback)).toEqual([true, true]);

    // Replayed: both replies at the fallback's $1, not the first model's $10.
    const replayed = await cli(["replay", result.runId, "--json"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(outcome(replayed.result)).toEqual(outcome(result));

    // Resumed after step 1: its recorded fallback reply $1, the first model's new one $10.
    const second = lines.findIndex(
      (line, index) => index > 1 && JSON.parse(line).type === "model_reply",
    );
    await writeFile(stateFile, `${lines.slice(0, second).join("\n")}\n`);
    const resumed = await cli(["resume", result.runId, "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.result).toMatchObject({ model: "main-model", costUsd: 11 });
    const again = await cli(["replay", result.runId, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(outcome(again.result)).toEqual(outcome(resumed.result));
  });

  it("a replay keeps a fallback of unknown price unknown: costUsd null, as the run's", async () => {
    const server = await serve("openai", [
      { status: 503, body: { error: { message: "overloaded #1" } } },
      { status: 503, body: { error: { message: "overloaded #2" } } },
      { text: "备用模型完成", usage: { inputTokens: 1_000, outputTokens: 0 } },
    ]);
    const prices = join(home, "pricing.json");
    await writeFile(
      prices,
      JSON.stringify({ "main-model": { inputPerMTok: 10, outputPerMTok: 10 } }),
    );
    const flags = ["--max-retries", "1", "--fallback-model", "mystery-model", "--pricing", prices];
    const { result } = await cli(runArgs("openai", server, ...flags));
    expect(result).toMatchObject({ status: "completed", costUsd: null });
    const replayed = await cli(["replay", result.runId, "--json"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(outcome(replayed.result)).toEqual(outcome(result));
  });

  it("a cost budget with a fallback of unknown price is a usage error before any request", async () => {
    const server = await serve("openai", [{ text: "不应被请求" }]);
    const prices = join(home, "pricing.json");
    await writeFile(
      prices,
      JSON.stringify({ "main-model": { inputPerMTok: 1, outputPerMTok: 1 } }),
    );
    const { code, stderr } = await cli(
      runArgs(
        "openai",
        server,
        "--fallback-model",
        "mystery-model",
        "--pricing",
        prices,
        "--max-cost-usd",
        "5",
      ),
    );
    expect(code).toBe(2);
    expect(stderr).toContain("mystery-model");
    expect(server.requests).toHaveLength(0);
  });

  it("the OpenTelemetry chat spans name the model that answered (gen_ai.response.model)", async () => {
    const collector = await startCollector();
    try {
      const server = await serve("openai", failingThenFallback());
      const argv = runArgs(
        "openai",
        server,
        "--max-retries",
        "1",
        "--fallback-model",
        "backup-model",
      );
      const { code } = await captureCli(argv, {
        ...env(),
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      });
      expect(code).toBe(0);
      const chats = collector.spans.filter((span) => span.name.startsWith("chat "));
      expect(chats.map((span) => span.attributes["gen_ai.request.model"])).toEqual([
        "main-model",
        "main-model",
      ]);
      expect(chats.map((span) => span.attributes["gen_ai.response.model"])).toEqual([
        "backup-model",
        "backup-model",
      ]);
    } finally {
      await collector.close();
    }
  });

  it("without it, the same failures end the run provider_error, exit 1", async () => {
    const server = await serve("openai", failingThenFallback());
    const { code, result } = await cli(runArgs("openai", server, "--max-retries", "1"));
    expect(code).toBe(1);
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(modelsAsked(server)).toEqual(["main-model", "main-model"]);
  });

  it("a run that used the fallback resumes: recorded replies kept, then the first model again", async () => {
    const server = await serve("anthropic", [
      ...failingThenFallback(),
      // What the resumed run asks, after the recorded step 1.
      { text: "主模型恢复后完成" },
    ]);
    const { result } = await cli(
      runArgs("anthropic", server, "--max-retries", "1", "--fallback-model", "backup-model"),
    );
    expect(result).toMatchObject({ status: "completed", model: "backup-model" });
    // A crash after step 1's tool call: everything from the second reply on is lost.
    const stateFile = join(home, "runs", result.runId, "state.jsonl");
    const lines = (await readFile(stateFile, "utf8")).trim().split("\n");
    const second = lines.findIndex(
      (line, index) => index > 1 && JSON.parse(line).type === "model_reply",
    );
    await writeFile(stateFile, `${lines.slice(0, second).join("\n")}\n`);

    const resumed = await cli(["resume", result.runId, "--json"]);
    expect(resumed.code).toBe(0);
    expect(resumed.result).toMatchObject({
      status: "completed",
      summary: "主模型恢复后完成",
      steps: 2,
      model: "main-model",
    });
    expect(modelsAsked(server).slice(4)).toEqual(["main-model"]);
    const echoed = resumed.result.messages.filter((m: { role: string }) => m.role === "tool");
    expect(echoed).toHaveLength(1);
    expect(echoed[0].content).toContain("备用模型在回答");
  });

  it("is a usage error with the fake model (exit 2), and its help is in Chinese", async () => {
    const { code, stderr } = await cli(["run", "x", "--fallback-model", "m2"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--fallback-model 只用于真实模型");
    expect((await cli(["help"])).stdout).toMatch(/--fallback-model <值>\s+备用模型名/);
  });
});

describe("reply text on stderr", HANG_GUARD, () => {
  async function runOnTerminal(server: FakeModelServer, terminal: boolean) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      runArgs("openai", server),
      {
        stdout: (text) => out.push(text),
        stderr: (text) => err.push(text),
        stderrIsTerminal: terminal,
      },
      new AbortController().signal,
      env(),
    );
    return { code, stdout: out.join(""), stderr: err.join("") };
  }

  it("streams to a terminal as it arrives, a secret split over chunks masked", async () => {
    const secret = "ghp_SplitAcrossChunks1234567890abcdefgh";
    const text = `第一行回复\n密钥是 ${secret} 和 ${OPENAI_KEY}\n最后一行`;
    // 1-byte writes: the secrets arrive in many pieces.
    const server = await serve("openai", [{ text, stream: { chunkBytes: 1 } }]);
    const { code, stdout, stderr } = await runOnTerminal(server, true);
    expect(code).toBe(0);
    // Not even a piece of a secret: a mask of each piece alone would let "ghp_Split…" through.
    expect(stderr).not.toContain("ghp_Split");
    expect(stderr).not.toContain(secret);
    expect(stderr).not.toContain(OPENAI_KEY.slice(0, 12));
    expect(stderr).toContain("第一行回复\n");
    expect(stderr).toContain("最后一行\n");
    expect(stdout).not.toContain(secret);
    // stdout is the --json result only, as without a terminal.
    expect(() => JSON.parse(stdout)).not.toThrow();
  });

  it("writes none of it when stderr is not a terminal", async () => {
    const server = await serve("openai", [{ text: "只在终端上显示" }]);
    const { code, stderr } = await runOnTerminal(server, false);
    expect(code).toBe(0);
    expect(stderr).not.toContain("只在终端上显示");
  });
});
