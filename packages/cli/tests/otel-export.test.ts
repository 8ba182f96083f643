import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { otlpTracesUrl } from "../src/trace/otel-export.ts";
import { deadPort, type ReceivedSpan, startCollector } from "./support/otlp-collector.ts";
import { BIN } from "./support/spawn-bin.ts";

// A real collector on loopback: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 60_000 };
const KEY = "sk-proj-OtelKeyThatMustNeverBeExported0123456789";
const SECRET = "otel-S3cret-Value-From-The-Env-42";

let base: string;
let workspace: string;
let collector: Awaited<ReturnType<typeof startCollector>>;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "otel-export-"));
  workspace = join(base, "ws");
  await mkdir(workspace);
  await writeFile(join(workspace, "notes.txt"), `hello\ntoken ${KEY}\n`);
  collector = await startCollector();
});
afterEach(async () => {
  await collector.close();
  await rm(base, { recursive: true, force: true });
});

const call = (tool: string, input: unknown, usage?: object) => ({
  action: { type: "tool_call", tool, input },
  ...(usage === undefined ? {} : { usage }),
});

/** The usual run: a file read (with usage), a failing read, a finish. */
const TURNS = [
  call("read_file", { path: "notes.txt" }, { inputTokens: 120, outputTokens: 30 }),
  call("read_file", { path: `missing-${SECRET}.txt` }, { inputTokens: 200, outputTokens: 12 }),
  {
    action: { type: "finish", summary: `done ${KEY}` },
    usage: { inputTokens: 250, outputTokens: 8 },
  },
];

async function run(env: Record<string, string>, turns: unknown[] = TURNS) {
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(turns));
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    [
      "run",
      `读 notes.txt ${KEY} ${SECRET}`,
      "--script",
      script,
      "--workspace",
      workspace,
      "--finish-gate",
      "none",
      "--json",
    ],
    { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
    new AbortController().signal,
    {
      CODING_AGENT_HOME: join(base, "home"),
      SERVICE_API_SECRET: SECRET,
      PATH: process.env.PATH,
      ...env,
    },
  );
  return { code, stderr: err.join(""), result: JSON.parse(out.join("")) };
}

const byName = (spans: readonly ReceivedSpan[], name: string) =>
  spans.filter((span) => span.name === name);

describe("OpenTelemetry export", HANG_GUARD, () => {
  it("sends one invoke_agent span, a chat span per model call and an execute_tool span per tool call", async () => {
    const { code, result } = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    expect(code).toBe(0);
    const { spans } = collector;
    const [root] = byName(spans, "invoke_agent");
    expect(byName(spans, "invoke_agent")).toHaveLength(1);
    expect(root?.parentSpanId).toBeUndefined();
    expect(root?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "fake",
      "gen_ai.conversation.id": result.runId,
      "gen_ai.usage.input_tokens": 570,
      "gen_ai.usage.output_tokens": 50,
    });
    const chats = byName(spans, "chat fake");
    expect(chats).toHaveLength(3);
    expect(chats.map((span) => span.attributes["gen_ai.usage.input_tokens"])).toEqual([
      120, 200, 250,
    ]);
    expect(chats.map((span) => span.attributes["gen_ai.usage.output_tokens"])).toEqual([30, 12, 8]);
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "fake",
        "gen_ai.request.model": "fake",
      });
    }
    const tools = byName(spans, "execute_tool read_file");
    expect(tools).toHaveLength(2);
    expect(tools.map((span) => span.attributes["gen_ai.tool.call.id"])).toEqual([
      "call_1",
      "call_2",
    ]);
    for (const span of [...chats, ...tools]) {
      expect(span.parentSpanId, span.name).toBe(root?.spanId);
      expect(span.traceId).toBe(root?.traceId);
    }
    expect(tools[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "read_file",
    });
    // The failed read is an error span typed by its code; the good one is not.
    expect(tools[1]?.status.code).toBe(2);
    expect(tools[1]?.attributes["error.type"]).toBe("not_found");
    expect(tools[0]?.status.code ?? 0).not.toBe(2);
    expect(spans).toHaveLength(6);
  });

  it("names the service and nothing of the command line in the resource", async () => {
    await run({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.endpoint}/v1/traces` });
    expect(collector.spans.length).toBeGreaterThan(0);
    for (const span of collector.spans) {
      expect(span.resource["service.name"]).toBe("coding-agent");
      expect(Object.keys(span.resource).filter((key) => key.startsWith("process."))).toEqual([]);
    }
    expect(collector.bodies.join("")).not.toContain("notes.txt");
  });

  it("marks a failed run's span as an error with its stop code", async () => {
    const { code } = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint }, [
      { action: { type: "tool_call", tool: "no_such_tool", input: {} } },
    ]);
    expect(code).toBe(1);
    const [root] = byName(collector.spans, "invoke_agent");
    expect(root?.status.code).toBe(2);
    expect(root?.attributes["error.type"]).toBe("unknown_tool");
  });

  it("sends no message content by default: no goal, no action, no tool input or result", async () => {
    await run({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    expect(collector.spans).toHaveLength(6);
    const sent = collector.bodies.join("");
    expect(sent).not.toContain("gen_ai.input.messages");
    expect(sent).not.toContain("gen_ai.output.messages");
    expect(sent).not.toContain("gen_ai.tool.call.arguments");
    expect(sent).not.toContain("gen_ai.tool.call.result");
    expect(sent).not.toContain("hello");
    expect(sent).not.toContain(KEY);
    expect(sent).not.toContain(SECRET);
  });

  it("sends redacted content with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true", async () => {
    await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    });
    const sent = collector.bodies.join("");
    expect(sent).not.toContain(KEY);
    expect(sent).not.toContain(SECRET);
    const [root] = byName(collector.spans, "invoke_agent");
    expect(String(root?.attributes["gen_ai.input.messages"])).toContain("读 notes.txt [REDACTED");
    const [read] = byName(collector.spans, "execute_tool read_file");
    expect(String(read?.attributes["gen_ai.tool.call.arguments"])).toContain("notes.txt");
    expect(String(read?.attributes["gen_ai.tool.call.result"])).toContain("hello");
    expect(String(read?.attributes["gen_ai.tool.call.result"])).toContain("[REDACTED");
    const chats = byName(collector.spans, "chat fake");
    expect(String(chats[2]?.attributes["gen_ai.output.messages"])).toContain("done [REDACTED");
  });

  it("warns once on stderr for an unreachable collector and keeps the result and exit code", async () => {
    const port = await deadPort();
    const { code, stderr, result } = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    });
    const without = await run({});
    expect(code).toBe(0);
    expect(without.code).toBe(0);
    expect(result).toMatchObject({
      status: without.result.status,
      code: without.result.code,
      steps: without.result.steps,
      toolCalls: without.result.toolCalls,
    });
    const warnings = stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("运行结果不受影响");
    expect(without.stderr).not.toContain("OpenTelemetry");
  });
});

/** A resolve hook that names every OpenTelemetry module the process loads, on stderr. */
const REPORT_OTEL_LOADS = `data:text/javascript,${encodeURIComponent(
  'import { registerHooks } from "node:module";' +
    "registerHooks({ resolve(specifier, context, next) {" +
    ' if (specifier.startsWith("@opentelemetry/")) process.stderr.write("OTEL-LOADED " + specifier + "\\n");' +
    " return next(specifier, context); } });",
)}`;

function spawnRun(env: Record<string, string>) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", REPORT_OTEL_LOADS, BIN, "run", "看看", "--workspace", workspace, "--json"],
      {
        stdio: ["ignore", "ignore", "pipe"],
        env: { PATH: process.env.PATH, CODING_AGENT_HOME: join(base, "home"), ...env },
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("the OpenTelemetry SDK", HANG_GUARD, () => {
  it("is loaded only when an OTLP endpoint is set (a run without one pays nothing for it)", async () => {
    const without = await spawnRun({});
    expect(without.code).toBe(0);
    expect(without.stderr).not.toContain("OTEL-LOADED");
    const withEndpoint = await spawnRun({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    expect(withEndpoint.code).toBe(0);
    // The hook sees the SDK when it is loaded: its silence above means something.
    expect(withEndpoint.stderr).toContain("OTEL-LOADED @opentelemetry/sdk-trace");
    expect(collector.spans.length).toBeGreaterThan(0);
  });
});

describe("a collector that accepts and never answers", HANG_GUARD, () => {
  it("costs one warning and a bounded wait at the end, never the result", async () => {
    const silent = createServer(() => {
      // Never answers: the export must give up on its own.
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const { code, stderr, result } = await run({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      });
      expect(code).toBe(0);
      expect(result).toMatchObject({ status: "completed", code: "finished", toolCalls: 2 });
      const warnings = stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
      expect(warnings).toHaveLength(1);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe("coding-agent --help", () => {
  it("names the variables that turn the export and its content on, in Chinese", async () => {
    const out: string[] = [];
    const code = await runCli(
      ["--help"],
      { stdout: (t) => out.push(t), stderr: () => {} },
      new AbortController().signal,
      {},
    );
    expect(code).toBe(0);
    expect(out.join("")).toMatch(/设置 OTEL_EXPORTER_OTLP_ENDPOINT.*OpenTelemetry GenAI span/);
    expect(out.join("")).toContain(
      "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true 才带消息内容",
    );
    expect(out.join("")).toContain("trace.jsonl");
  });
});

describe("otlpTracesUrl", () => {
  it.each([
    [{}, undefined],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, undefined],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, "http://c:4318/v1/traces"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }, "http://c:4318/v1/traces"],
    [
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/x",
      },
      "http://t/x",
    ],
  ])("reads %j as %s", (env, url) => {
    expect(otlpTracesUrl(env)).toBe(url);
  });
});
