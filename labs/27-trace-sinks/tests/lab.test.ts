import {
  createRedactor,
  MAX_TRACE_FIELD_CHARS,
  runAgent,
  type ToolSet,
  type TraceEvent,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createJsonlSink, genAiSpanOf } from "@lab";
import { describe, expect, it } from "vitest";

/** A secret masked by its value (as a key read from the environment is). */
const SECRET = "Pl4nted-Secret-Value-0123456789-abcdef";
const redact = createRedactor({ env: {}, secrets: [SECRET] });

/** A sink whose lines go to an array. */
function collecting() {
  const lines: string[] = [];
  const sink = createJsonlSink({ runId: "run-1", write: (line) => lines.push(line), redact });
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { lines, sink, parsed };
}

const event = (body: Record<string, unknown>, seq = 1): TraceEvent =>
  ({ ...body, seq, atMs: seq * 10 }) as TraceEvent;

const turns = (...actions: unknown[]) =>
  createScriptedProvider(actions.map((action) => ({ action })));
const read = (path: string) => ({ type: "tool_call", tool: "read_file", input: { path } });
const finish = { type: "finish", summary: "看完了" };

/** Counts the tool's real runs: a tool the trace could not record must not run. */
function countingTools() {
  const ran = { count: 0 };
  const tools: ToolSet = {
    read_file: {
      execute: (input) => {
        ran.count += 1;
        return `内容：${String(input.path)}`;
      },
    },
  };
  return { ran, tools };
}

describe("createJsonlSink", () => {
  it("writes one JSON line per event, in order, each ending in a newline", () => {
    const { lines, sink, parsed } = collecting();
    sink(event({ type: "model_started", step: 1 }, 1));
    sink(event({ type: "model_completed", step: 1, ok: true, detail: "多行\n文本" }, 2));
    expect(lines, "两个事件写成两行").toHaveLength(2);
    for (const line of lines) {
      expect(line.endsWith("\n"), "每行以换行结束").toBe(true);
      expect(line.slice(0, -1).includes("\n"), "一行里不能有真正的换行").toBe(false);
    }
    expect(parsed().map((line) => line.seq)).toEqual([1, 2]);
  });

  it("puts seq, atMs, runId and type first on every line", () => {
    const { sink, parsed } = collecting();
    sink(
      event({ type: "tool_started", step: 1, callId: "call_1", tool: "read_file", input: "{}" }, 4),
    );
    const [line] = parsed();
    expect(Object.keys(line ?? {}).slice(0, 4), "前四个字段").toEqual([
      "seq",
      "atMs",
      "runId",
      "type",
    ]);
    expect(line, "runId 来自 sink 的选项").toMatchObject({ seq: 4, atMs: 40, runId: "run-1" });
  });

  it("masks a secret in any field: the goal, a tool input, an observation, an error", () => {
    const { lines, sink } = collecting();
    sink(event({ type: "run_started", goal: `修好它 ${SECRET}`, limits: {} }, 1));
    sink(
      event(
        { type: "tool_started", step: 1, callId: "c", tool: "t", input: `{"key":"${SECRET}"}` },
        2,
      ),
    );
    sink(
      event(
        { type: "tool_completed", step: 1, callId: "c", tool: "t", ok: true, detail: SECRET },
        3,
      ),
    );
    sink(
      event(
        { type: "run_finished", status: "failed", code: "tool_error", reason: `失败 ${SECRET}` },
        4,
      ),
    );
    const text = lines.join("");
    expect(text, "密钥不能出现在任何一行里").not.toContain(SECRET);
    expect(text, "脱敏留下的标记").toContain("[REDACTED");
  });

  it("keeps every line bounded when an observation is a megabyte", () => {
    const { lines, sink, parsed } = collecting();
    const megabyte = `HEAD${"x".repeat(1_000_000)}TAIL`;
    sink(
      event({
        type: "tool_completed",
        step: 1,
        callId: "c",
        tool: "t",
        ok: true,
        detail: megabyte,
      }),
    );
    expect(lines[0]?.length, "一行的长度").toBeLessThan(MAX_TRACE_FIELD_CHARS + 300);
    const detail = String(parsed()[0]?.detail);
    expect(detail.startsWith("HEAD") && detail.endsWith("TAIL"), "保留开头和结尾").toBe(true);
  });

  it("masks before it cuts: no piece of a secret that the cut would split", () => {
    const { lines, sink } = collecting();
    // 截断保留的开头大约 1975 个字符：密钥正好跨在切口上。
    const detail = `${"a".repeat(1_960)}${SECRET}${"b".repeat(10_000)}`;
    sink(event({ type: "tool_completed", step: 1, callId: "c", tool: "t", ok: true, detail }));
    expect(lines[0]?.length, "这一行被截断了").toBeLessThan(MAX_TRACE_FIELD_CHARS + 300);
    expect(lines[0], "切口处留下了密钥的前半截").not.toContain(SECRET.slice(0, 10));
  });

  it("lets a failed write throw: the loop must hear of it", () => {
    const sink = createJsonlSink({
      runId: "run-1",
      write: () => {
        throw new Error("ENOSPC: no space left on device");
      },
      redact,
    });
    expect(() => sink(event({ type: "model_started", step: 1 })), "写失败的异常被吞掉了").toThrow(
      "ENOSPC",
    );
  });
});

describe("createJsonlSink inside runAgent", () => {
  it("writes the whole run as its requiredTrace: seq 1… without gaps, runId on every line", async () => {
    const { sink, parsed } = collecting();
    const { tools } = countingTools();
    const result = await runAgent(
      "看看 a.txt",
      turns(read("a.txt"), finish),
      tools,
      { maxSteps: 5 },
      undefined,
      {
        redact,
        requiredTrace: sink,
      },
    );
    expect(result.status).toBe("completed");
    const lines = parsed();
    expect(lines.map((line) => line.type)).toEqual([
      "run_started",
      "model_started",
      "model_completed",
      "tool_started",
      "tool_completed",
      "model_started",
      "model_completed",
      "run_finished",
    ]);
    expect(
      lines.map((line) => line.seq),
      "seq 没有空缺",
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(
      lines.every((line) => line.runId === "run-1"),
      "每一行都带 runId",
    ).toBe(true);
  });

  it("ends the run failed / trace_failed when a write fails, and runs no tool after it", async () => {
    const { ran, tools } = countingTools();
    const sink = createJsonlSink({
      runId: "run-1",
      write: (line) => {
        if (line.includes('"type":"tool_started"'))
          throw new Error("ENOSPC: no space left on device");
      },
      redact,
    });
    const result = await runAgent(
      "看看 a.txt",
      turns(read("a.txt"), finish),
      tools,
      { maxSteps: 5 },
      undefined,
      {
        redact,
        requiredTrace: sink,
      },
    );
    expect(result, "轨迹写不进去，运行不能照常完成").toMatchObject({
      status: "failed",
      code: "trace_failed",
    });
    expect(result.reason).toContain("ENOSPC");
    expect(ran.count, "记录不下来的工具不能运行").toBe(0);
  });
});

describe("genAiSpanOf", () => {
  const model = { provider: "openai", name: "gpt-4o" };

  it("names the run's span invoke_agent and each model call chat <model>", () => {
    expect(
      genAiSpanOf(event({ type: "run_started", goal: "g", limits: {} }), model),
      "run_started",
    ).toEqual({
      name: "invoke_agent",
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
      },
    });
    expect(genAiSpanOf(event({ type: "model_started", step: 1 }), model), "model_started").toEqual({
      name: "chat gpt-4o",
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
      },
    });
  });

  it("names each tool call execute_tool <name> with its tool name and call id", () => {
    const started = event({
      type: "tool_started",
      step: 1,
      callId: "call_1",
      tool: "read_file",
      input: "{}",
    });
    expect(genAiSpanOf(started, model), "tool_started").toEqual({
      name: "execute_tool read_file",
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "read_file",
        "gen_ai.tool.call.id": "call_1",
      },
    });
  });

  it("puts no message content in a span: neither the goal nor a tool's input", () => {
    const spans = [
      genAiSpanOf(event({ type: "run_started", goal: `目标 ${SECRET}`, limits: {} }), model),
      genAiSpanOf(
        event({
          type: "tool_started",
          step: 1,
          callId: "c",
          tool: "t",
          input: `{"x":"${SECRET}"}`,
        }),
        model,
      ),
    ];
    expect(JSON.stringify(spans), "span 里出现了消息内容").not.toContain(SECRET);
  });

  it("maps a real run to invoke_agent, chat, execute_tool, chat", async () => {
    const events: TraceEvent[] = [];
    const { tools } = countingTools();
    await runAgent("看看 a.txt", turns(read("a.txt"), finish), tools, { maxSteps: 5 }, undefined, {
      trace: (traced) => void events.push(traced),
    });
    const names = events.flatMap((traced) => genAiSpanOf(traced, model)?.name ?? []);
    expect(names, "一次工具轮次和一次完成").toEqual([
      "invoke_agent",
      "chat gpt-4o",
      "execute_tool read_file",
      "chat gpt-4o",
    ]);
  });
});
