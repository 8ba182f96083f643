import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRedactor } from "@coding-agent/agent-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  continueTraceFile,
  createJsonlTraceSink,
  fileTraceWriter,
} from "../src/trace/jsonl-sink.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "trace-sink-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("fileTraceWriter", () => {
  it("fails the line after its file was removed instead of writing into a file nobody sees", async () => {
    const file = join(dir, "trace.jsonl");
    const writer = fileTraceWriter(file);
    writer.append("one\n");
    await rm(file);
    expect(() => writer.append("two\n")).toThrow(/ENOENT/);
    writer.close?.();
  });

  it("fails the first line when the file cannot be made", () => {
    const writer = fileTraceWriter(join(dir, "no-such-folder", "trace.jsonl"));
    expect(() => writer.append("one\n")).toThrow(/ENOENT/);
  });
});

describe("createJsonlTraceSink", () => {
  it("masks a secret that reached an event unmasked (the last line of defence)", async () => {
    const file = join(dir, "trace.jsonl");
    const writer = fileTraceWriter(file);
    const secret = "ghp_SinkDefenceToken1234567890abcdefABCD";
    const sink = createJsonlTraceSink({ runId: "r", writer, redact: createRedactor() });
    sink.sink({ type: "model_started", step: 1, seq: 1, atMs: 0 });
    sink.sink({
      type: "tool_completed",
      step: 1,
      callId: "c",
      tool: "echo",
      ok: true,
      detail: `leak ${secret}`,
      seq: 2,
      atMs: 1,
    });
    sink.close();
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(secret);
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).seq),
    ).toEqual([1, 2]);
  });
});

describe("createJsonlTraceSink's order: mask, then cut", () => {
  it("leaves no piece of a secret that a cut would have split in two", async () => {
    const file = join(dir, "trace.jsonl");
    const secret = "Pl4nted-Secret-Value-That-Straddles-The-Cut";
    const sink = createJsonlTraceSink({
      runId: "r",
      writer: fileTraceWriter(file),
      redact: createRedactor({ secrets: [secret] }),
    });
    // The head the bound keeps ends inside the secret (about 1,975 of 4,000 characters).
    const detail = `${"a".repeat(1_960)}${secret}${"b".repeat(10_000)}`;
    sink.sink({
      type: "tool_completed",
      step: 1,
      callId: "c",
      tool: "t",
      ok: true,
      detail,
      seq: 1,
      atMs: 0,
    });
    sink.close();
    const line = await readFile(file, "utf8");
    expect(JSON.parse(line).truncated).toBe(true);
    expect(line).not.toContain(secret.slice(0, 10));
  });
});

describe("continueTraceFile", () => {
  it("reads the last seq and cuts a torn last line", async () => {
    const file = join(dir, "trace.jsonl");
    await writeFile(file, '{"seq":1,"atMs":0}\n{"seq":2,"atMs":7}\n{"seq":3,"at');
    const continuation = await continueTraceFile(file);
    expect(continuation).toMatchObject({ lastSeq: 2, lastAtMs: 7 });
    expect(continuation.warning).toContain("最后一行不完整");
    expect(await readFile(file, "utf8")).toBe('{"seq":1,"atMs":0}\n{"seq":2,"atMs":7}\n');
  });

  it("stops at a tampered line (a gap or garbage) and cuts the file there", async () => {
    const file = join(dir, "trace.jsonl");
    await writeFile(file, '{"seq":1,"atMs":0}\n{"seq":5,"atMs":9}\n{"seq":6,"atMs":9}\n');
    const continuation = await continueTraceFile(file);
    expect(continuation.lastSeq).toBe(1);
    expect(continuation.warning).toContain("第 2 行");
    expect(await readFile(file, "utf8")).toBe('{"seq":1,"atMs":0}\n');
  });

  it("starts from 0 for a missing file and refuses a device in its place", async () => {
    expect(await continueTraceFile(join(dir, "none.jsonl"))).toEqual({ lastSeq: 0, lastAtMs: 0 });
    await expect(continueTraceFile("/dev/full")).rejects.toThrow(/不是普通文件/);
  });
});
