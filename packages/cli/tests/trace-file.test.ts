import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { fileTraceWriter, type TraceWriter } from "../src/trace/jsonl-sink.ts";

// Real files: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
/** Masked by pattern (an OpenAI-style key) and by value (a secret-looking variable). */
const KEY = "sk-proj-Tr4ceKeyThatMustNeverReachTheFile0123456789";
const SECRET = "s3cr3t-Value-From-The-Environment-77";

let base: string;
let workspace: string;
let home: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "trace-file-"));
  workspace = join(base, "ws");
  home = join(base, "home");
  await mkdir(workspace, { recursive: true });
  await writeFile(join(workspace, "notes.txt"), "line one\nline two\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const call = (tool: string, input: unknown) => ({ action: { type: "tool_call", tool, input } });
const finish = { action: { type: "finish", summary: "看完了" } };

/** `coding-agent run` in-process with its own home; `traceWriter` replaces the file writer. */
async function run(
  turns: unknown[],
  options: {
    readonly flags?: string[];
    readonly goal?: string;
    readonly traceWriter?: (file: string) => TraceWriter;
  } = {},
) {
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(turns));
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    [
      "run",
      options.goal ?? "看看 notes.txt",
      "--script",
      script,
      "--workspace",
      workspace,
      "--finish-gate",
      "none",
      "--json",
      ...(options.flags ?? []),
    ],
    {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      ...(options.traceWriter === undefined ? {} : { traceWriter: options.traceWriter }),
    },
    new AbortController().signal,
    { CODING_AGENT_HOME: home, SERVICE_API_SECRET: SECRET, PATH: process.env.PATH },
  );
  const stdout = out.join("");
  return { code, stderr: err.join(""), result: stdout === "" ? undefined : JSON.parse(stdout) };
}

async function traceLines(runDir: string) {
  const text = await readFile(join(runDir, "trace.jsonl"), "utf8");
  return {
    text,
    events: text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line)),
  };
}

describe("trace.jsonl", HANG_GUARD, () => {
  it("holds every event of the run as { seq, atMs, runId, type }, seq from 1 without gaps", async () => {
    const { code, result } = await run([call("read_file", { path: "notes.txt" }), finish]);
    expect(code).toBe(0);
    const { events } = await traceLines(result.runDir);
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "model_started",
      "model_completed",
      "tool_started",
      "tool_completed",
      "model_started",
      "model_completed",
      "run_finished",
    ]);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    for (const event of events) {
      expect(event.runId).toBe(result.runId);
      expect(typeof event.atMs).toBe("number");
    }
    const times = events.map((event) => event.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events.at(-1)).toMatchObject({ status: "completed", code: "finished", toolCalls: 1 });
  });

  it("never holds a key or secret planted in the goal, a tool input, a tool output or an error", async () => {
    await writeFile(join(workspace, "leak.txt"), `token=${KEY}\npassword=${SECRET}\n`);
    const { result } = await run(
      [
        call("read_file", { path: "leak.txt" }),
        call("echo", { text: `input ${KEY} ${SECRET}` }),
        // The error quotes the path it could not find: the secret is in the error text.
        call("read_file", { path: `missing-${SECRET}.txt` }),
        { action: { type: "finish", summary: `done ${KEY}` } },
      ],
      { goal: `读 leak.txt，钥匙 ${KEY}，口令 ${SECRET}` },
    );
    expect(result.status).toBe("completed");
    const { text, events } = await traceLines(result.runDir);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(SECRET);
    // The fields were there, masked: the check looked where the secrets were.
    expect(events[0].goal).toContain("[REDACTED");
    const failed = events.find((event) => event.type === "tool_completed" && !event.ok);
    expect(failed?.detail).toContain("not_found");
    expect(failed?.detail).toContain("[REDACTED");
    const read = events.find((event) => event.type === "tool_completed" && event.ok);
    expect(read?.detail).toContain("[REDACTED");
  });

  it("keeps a line bounded when a tool's output is a megabyte", async () => {
    const megabyte = `HEAD${"x".repeat(1_000_000)}TAIL`;
    const { result } = await run([call("echo", { text: megabyte }), finish], {
      flags: ["--max-observation-chars", "2000000"],
    });
    expect(result.status).toBe("completed");
    const observed = result.messages.find((m: { role: string }) => m.role === "tool");
    // The run itself saw the megabyte: the bound is the trace's, not the tool's.
    expect(String(observed.content).length).toBeGreaterThan(1_000_000);
    const { text, events } = await traceLines(result.runDir);
    for (const line of text.trimEnd().split("\n")) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(16_384);
    }
    const completed = events.find((event) => event.type === "tool_completed");
    expect(completed).toMatchObject({ truncated: true, ok: true });
    expect(completed.detail).toContain("truncated");
    expect(completed.detail.startsWith("HEAD")).toBe(true);
    expect(completed.detail.endsWith("TAIL")).toBe(true);
  });
});

describe("a trace write that fails", HANG_GUARD, () => {
  it("ends the run failed / trace_failed, exit 1, with a Chinese message and no stack", async () => {
    let lines = 0;
    const failing = (file: string): TraceWriter => {
      const real = fileTraceWriter(file);
      return {
        append(line) {
          lines += 1;
          // The model's first reply is written; the tool's start is not.
          if (line.includes('"type":"tool_started"')) {
            throw new Error("ENOSPC: no space left on device, write");
          }
          real.append(line);
        },
      };
    };
    await writeFile(join(workspace, "count.txt"), "");
    const { code, stderr, result } = await run(
      [call("write_file", { path: "count.txt", content: "ran" }), finish],
      { traceWriter: failing, flags: ["--approval", "auto"] },
    );
    const ran = (await readFile(join(workspace, "count.txt"), "utf8")).length;
    expect(code).toBe(1);
    expect(result).toMatchObject({ status: "failed", code: "trace_failed", toolCalls: 0 });
    expect(result.reason).toContain("ENOSPC");
    expect(ran, "the tool whose start could not be traced must not run").toBe(0);
    expect(stderr).toMatch(
      /错误：轨迹文件 .*trace\.jsonl 写入失败，运行已停止（failed，trace_failed）/,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(lines).toBe(4);
    const { events } = await traceLines(result.runDir);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3]);
  });

  it("on a full disk (/dev/full) ends trace_failed before the model is asked", async () => {
    const { code, stderr, result } = await run([finish], {
      traceWriter: () => fileTraceWriter("/dev/full"),
    });
    expect(code).toBe(1);
    expect(result).toMatchObject({ status: "failed", code: "trace_failed", steps: 0 });
    expect(result.reason).toContain("ENOSPC");
    expect(stderr).toContain("轨迹文件");
  });

  it("when the run folder is removed mid-run ends trace_failed at the next write", async () => {
    const { code, result } = await run(
      [call("run_command", { argv: ["rm", "-rf", join(home, "runs")] }), finish, finish],
      { flags: ["--allow-command", "rm", "--sandbox", "none", "--approval", "auto"] },
    );
    expect(code).toBe(1);
    expect(result).toMatchObject({ status: "failed", code: "trace_failed", toolCalls: 1 });
    expect(result.reason).toContain("ENOENT");
  });
});

describe("trace.jsonl of a resumed run", HANG_GUARD, () => {
  it("goes on after the last complete line with a resumed event, seq without gaps", async () => {
    const first = await run([
      call("read_file", { path: "notes.txt" }),
      call("read_file", { path: "notes.txt" }),
      finish,
    ]);
    expect(first.result.status).toBe("completed");
    const { runDir, runId } = first.result;
    // A crash after the first tool's result: both logs cut there, the trace mid-line.
    const state = (await readFile(join(runDir, "state.jsonl"), "utf8")).split("\n");
    await writeFile(join(runDir, "state.jsonl"), `${state.slice(0, 4).join("\n")}\n`);
    const trace = (await readFile(join(runDir, "trace.jsonl"), "utf8")).split("\n");
    await writeFile(join(runDir, "trace.jsonl"), `${trace.slice(0, 5).join("\n")}\n{"seq":6,"atMs`);

    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ["resume", runId, "--json"],
      { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
      new AbortController().signal,
      { CODING_AGENT_HOME: home, PATH: process.env.PATH },
    );
    expect(code).toBe(0);
    expect(err.join("")).toContain("trace.jsonl 最后一行不完整");
    const { events } = await traceLines(runDir);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[5]).toMatchObject({ seq: 6, type: "resumed", fromSeq: 5, steps: 1, runId });
    // The loop starts again and goes through the recorded step (answered from the state
    // log, not run again), then the rest of the script.
    expect(events.slice(6).map((event) => `${event.type}${event.step ?? ""}`)).toEqual([
      "run_started",
      "model_started1",
      "model_completed1",
      "tool_started1",
      "tool_completed1",
      "model_started2",
      "model_completed2",
      "tool_started2",
      "tool_completed2",
      "model_started3",
      "model_completed3",
      "run_finished",
    ]);
    expect(events.every((event) => event.runId === runId)).toBe(true);
    const times = events.map((event) => event.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events.at(-1)).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("that cannot continue its trace file does not start: trace_failed, exit 1", async () => {
    const first = await run([call("read_file", { path: "notes.txt" }), finish]);
    const { runDir, runId } = first.result;
    const state = (await readFile(join(runDir, "state.jsonl"), "utf8")).split("\n");
    await writeFile(join(runDir, "state.jsonl"), `${state.slice(0, 4).join("\n")}\n`);
    await rm(join(runDir, "trace.jsonl"));
    // A folder where the file was: neither readable as a trace nor appendable.
    await mkdir(join(runDir, "trace.jsonl"));
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ["resume", runId, "--json"],
      { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
      new AbortController().signal,
      { CODING_AGENT_HOME: home, PATH: process.env.PATH },
    );
    expect(code).toBe(1);
    expect(JSON.parse(out.join(""))).toMatchObject({ status: "failed", code: "trace_failed" });
    expect(err.join("")).toContain("轨迹文件");
  });
});

describe("trace.jsonl beyond the basic round", HANG_GUARD, () => {
  it("records rejected finishes and compacted requests as the loop traces them", async () => {
    for (const n of [1, 2, 3, 4]) {
      await writeFile(join(workspace, `f${n}.txt`), `file ${n}\n${"some words here\n".repeat(80)}`);
    }
    const read = (n: number) => call("read_file", { path: `f${n}.txt` });
    const { result } = await run([read(1), read(2), read(3), read(4), finish, finish, finish], {
      flags: [
        "--max-context-tokens",
        "4000",
        "--finish-gate",
        "tests",
        "--test-command",
        "node -v",
      ],
    });
    expect(result, result.reason).toMatchObject({ status: "failed", code: "finish_rejected" });
    const { events } = await traceLines(result.runDir);
    const rejected = events.filter((event) => event.type === "finish_rejected");
    expect(rejected).toHaveLength(3);
    expect(rejected[0].reasons).toEqual(["no_test_evidence"]);
    const compacted = events.filter((event) => event.type === "compacted");
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted[0].results[0]).toMatchObject({ callId: "call_1", tool: "read_file" });
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });
});
