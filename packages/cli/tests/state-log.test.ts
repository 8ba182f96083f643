import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRedactor, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { openStateLog, parseStateLog } from "../src/state/log.ts";
import { createRunRecorder } from "../src/state/recorder.ts";
import { EMPTY_WORKSPACE } from "./support/isolate.ts";

const started = JSON.stringify({
  seq: 1,
  type: "run_started",
  runId: "r1",
  startedAt: "2026-12-01T00:00:00.000Z",
  goal: "g",
  workspace: "/w",
  options: {},
  startVersion: "sha256:0",
});
const reply = (seq: number) => JSON.stringify({ seq, type: "model_reply", step: 1, actions: [] });

describe("parseStateLog", () => {
  it("reads complete lines and counts their bytes", () => {
    const text = `${started}\n${reply(2)}\n`;
    const read = parseStateLog(text);
    expect(read).toMatchObject({ ok: true, bytes: Buffer.byteLength(text) });
    expect(read.ok && read.events.map((event) => event.type)).toEqual([
      "run_started",
      "model_reply",
    ]);
    expect(read.ok && read.warning).toBeUndefined();
  });

  it.each([
    ["a line without its newline", `${started}\n${reply(2)}`],
    ["half a JSON object", `${started}\n{"seq":2,"type":"mod`],
    ["a cut line followed by its newline", `${started}\n{"seq":2,"ty\n`],
  ])("drops %s at the end, with a warning", (_name, text) => {
    const read = parseStateLog(text);
    expect(read).toMatchObject({ ok: true, warning: expect.stringContaining("最后一行不完整") });
    expect(read.ok && read.events).toHaveLength(1);
    expect(read.ok && read.bytes).toBe(Buffer.byteLength(`${started}\n`));
  });

  it.each([
    ["a broken line in the middle", `${started}\n{oops\n${reply(3)}\n`, "第 2 行"],
    ["a gap in seq", `${started}\n${reply(3)}\n`, "seq 应为 2"],
    ["a log that does not start with run_started", `${reply(1)}\n`, "run_started"],
    [
      "an unknown event type",
      `${started}\n${JSON.stringify({ seq: 2, type: "tool_done" })}\n${reply(3)}\n`,
      "第 2 行",
    ],
    ["an empty file", "", "run_started"],
  ])("refuses %s, naming the line", (_name, text, message) => {
    const read = parseStateLog(text);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.message).toContain(message);
  });
});

describe("openStateLog", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "state-log-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("numbers events in call order and redacts every string and key, nested ones too", async () => {
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
    const log = await openStateLog(join(dir, "state.jsonl"), {
      redact: createRedactor({ secrets: [secret] }),
    });
    await Promise.all([
      log.append({ type: "run_started", goal: secret }),
      log.append(
        { type: "tool_intent", input: { [secret]: [{ deep: `x${secret}y` }] } },
        { sync: true },
      ),
    ]);
    await log.close();
    const text = await readFile(join(dir, "state.jsonl"), "utf8");
    expect(text).not.toContain(secret);
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).seq),
    ).toEqual([1, 2]);
  });
});

describe("a run whose records cannot be written", () => {
  it("ends failed / state_failed (exit 1) before doing anything, when its folder cannot be made", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "home-file-")), "not-a-dir");
    await writeFile(file, "");
    const out: string[] = [];
    const code = await runCli(
      ["run", "x", "--workspace", EMPTY_WORKSPACE, "--json"],
      { stdout: (t) => out.push(t), stderr: () => {} },
      new AbortController().signal,
      { CODING_AGENT_HOME: file },
    );
    expect(code).toBe(1);
    expect(JSON.parse(out.join(""))).toMatchObject({
      status: "failed",
      code: "state_failed",
      toolCalls: 0,
    });
  });
});

describe("the recorder when the disk fails mid-run", () => {
  it("never starts a tool whose intent could not be written: the run ends state_failed", async () => {
    let ran = 0;
    const log = {
      file: "state.jsonl",
      nextSeq: 1,
      append: async (event: { type: string }) => {
        if (event.type === "tool_intent") throw new Error("ENOSPC: no space left on device");
      },
      close: async () => {},
    };
    const tracker = {
      start: { version: "v", files: new Map() },
      current: "v",
      afterCall: async () => "v",
      versionAfter: () => "v",
      inspect: async () => ({ version: "v", changedFiles: [] }),
    };
    const recorder = createRunRecorder({ runId: "r", log, tracker });
    const result = await runAgent(
      "g",
      createScriptedProvider([
        { action: { type: "tool_call", tool: "echo", input: {} } },
        { action: { type: "finish", summary: "x" } },
      ]),
      {
        echo: {
          execute: () => {
            ran += 1;
          },
        },
      },
      { maxSteps: 3 },
      undefined,
      { extensions: [recorder] },
    );
    expect(result).toMatchObject({ status: "failed", code: "state_failed", toolCalls: 0 });
    expect(result.reason).toContain("ENOSPC");
    expect(ran).toBe(0);
    expect(await recorder.finished(result)).toBe(false);
  });
});
