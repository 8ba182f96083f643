import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStateLog, replayRun, runCli, type StateEvent } from "@coding-agent/cli";
import { compareWithLog } from "@lab";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** A few recorded transitions, as `state.jsonl` holds them. */
const reply = (seq: number, step: number): StateEvent =>
  ({ seq, type: "model_reply", step, actions: [] }) as StateEvent;
const intent = (seq: number, callId: string, tool: string, input: Record<string, unknown>) =>
  ({ seq, type: "tool_intent", step: 1, callId, tool, input, key: "k" }) as StateEvent;
const finished = (seq: number, fields: Record<string, unknown>) =>
  ({ seq, type: "run_finished", status: "completed", code: "finished", ...fields }) as StateEvent;
const end = { kind: "end", status: "completed", code: "finished", steps: 2, toolCalls: 1 } as const;
const readCall = (input: Record<string, unknown>) =>
  ({ kind: "tool_call", callId: "call_1", tool: "read_file", input }) as const;

describe("compareWithLog", () => {
  it("lets a model call through on the reply of its own step", () => {
    expect(
      compareWithLog({ kind: "model_call", step: 2 }, reply(5, 2)),
      "第 2 步，记录是第 2 步",
    ).toEqual({
      kind: "same",
    });
  });

  it("diverges where the runtime asks the model and the log has something else", () => {
    const verdict = compareWithLog(
      { kind: "model_call", step: 2 },
      finished(5, { steps: 1, toolCalls: 0 }),
    );
    expect(verdict, "记录在这里结束了，今天的运行时却还要调用模型").toMatchObject({
      kind: "diverged",
      seq: 5,
    });
  });

  it("diverges on a reply of another step", () => {
    expect(
      compareWithLog({ kind: "model_call", step: 2 }, reply(5, 3)),
      "要第 2 步，记录是第 3 步",
    ).toMatchObject({
      kind: "diverged",
      seq: 5,
    });
  });

  it("lets a tool call through on its own intent, whatever the order of the input's keys", () => {
    const recorded = intent(3, "call_1", "read_file", { path: "a.js", startLine: 1 });
    expect(
      compareWithLog(readCall({ startLine: 1, path: "a.js" }), recorded),
      "同一个输入，键的顺序不同",
    ).toEqual({
      kind: "same",
    });
  });

  it("diverges on a changed input, naming the intent's seq", () => {
    const recorded = intent(3, "call_1", "read_file", { path: "a.js" });
    const verdict = compareWithLog(readCall({ path: "b.js" }), recorded);
    expect(verdict, "记录读 a.js，今天读 b.js").toMatchObject({ kind: "diverged", seq: 3 });
    expect(verdict.kind === "diverged" ? verdict.what : "", "说明里要写明输入不同").toContain(
      "输入不同",
    );
  });

  it("diverges on another tool or another call id", () => {
    const read = readCall({ path: "a.js" });
    expect(
      compareWithLog(read, intent(3, "call_1", "list_files", { path: "a.js" })),
      "记录是 list_files",
    ).toMatchObject({
      kind: "diverged",
      seq: 3,
    });
    expect(
      compareWithLog(read, intent(3, "call_2", "read_file", { path: "a.js" })),
      "记录是 call_2",
    ).toMatchObject({
      kind: "diverged",
      seq: 3,
    });
    expect(compareWithLog(read, reply(3, 2)), "记录是下一步的回复，不是工具调用").toMatchObject({
      kind: "diverged",
      seq: 3,
    });
    expect(compareWithLog(read, undefined), "日志已经结束").toMatchObject({
      kind: "diverged",
      seq: undefined,
    });
  });

  it("lets the end through on a run_finished that agrees", () => {
    expect(compareWithLog(end, finished(9, { steps: 2, toolCalls: 1 })), "一样的结束").toEqual({
      kind: "same",
    });
  });

  it("diverges on an end that differs in status, code, steps or tool calls, naming each field", () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["status 不同", { status: "failed", steps: 2, toolCalls: 1 }, "status"],
      ["code 不同", { code: "max_steps", steps: 2, toolCalls: 1 }, "code"],
      ["steps 不同", { steps: 3, toolCalls: 1 }, "steps 记录为 3，重放为 2"],
      ["toolCalls 不同", { steps: 2, toolCalls: 4 }, "toolCalls 记录为 4，重放为 1"],
    ];
    for (const [name, fields, named] of cases) {
      const verdict = compareWithLog(end, finished(9, fields));
      expect(verdict, name).toMatchObject({ kind: "diverged", seq: 9 });
      expect(verdict.kind === "diverged" ? verdict.what : "", name).toContain(named);
    }
  });

  it("diverges when the log goes on where the runtime ends", () => {
    expect(compareWithLog(end, reply(7, 3)), "记录还有第 3 步").toMatchObject({
      kind: "diverged",
      seq: 7,
    });
  });
});

let base: string;
let home: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "lab-28-"));
  home = join(base, "home");
  await writeFile(join(base, "sum.js"), "export const sum = (a, b) => a - b;\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const call = (tool: string, input: unknown) => ({ action: { type: "tool_call", tool, input } });
const SCRIPT = [
  call("read_file", { path: "sum.js" }),
  call("edit_file", { path: "sum.js", old: "a - b", new: "a + b" }),
  { action: { type: "finish", summary: "改成了相加" } },
];

/** `coding-agent <argv>` in this process, with its own `$CODING_AGENT_HOME`; `compare` for a replay. */
async function cli(argv: string[], compare?: typeof compareWithLog) {
  let stdout = "";
  const io = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: () => {},
  };
  const env = { CODING_AGENT_HOME: home, PATH: process.env.PATH };
  const signal = new AbortController().signal;
  const code =
    compare === undefined
      ? await runCli(argv, io, signal, env)
      : await replayRun(argv[0] ?? "", true, io, signal, env, { compare });
  return { code, result: stdout.startsWith("{") ? JSON.parse(stdout) : undefined };
}

/** A real run of the fake model's script: read sum.js, edit it, finish. */
async function recordedRun() {
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(SCRIPT));
  const run = await cli([
    "run",
    "修复 sum",
    "--script",
    script,
    "--workspace",
    base,
    "--approval",
    "auto",
    "--sandbox",
    "none",
    "--finish-gate",
    "none",
    "--json",
  ]);
  expect(run.result?.status, "原始运行应当完成").toBe("completed");
  return run.result as { runId: string; steps: number; toolCalls: number; status: string };
}

/** Rewrites one line of the run's state log (or drops it when `edit` returns null). */
async function tamper(runId: string, edit: (event: Record<string, unknown>) => unknown) {
  const file = join(home, "runs", runId, "state.jsonl");
  const read = await readStateLog(file);
  if (!read.ok) throw new Error(read.message);
  const lines = read.events.map((event) => edit({ ...event })).filter((event) => event !== null);
  await writeFile(file, `${lines.map((event) => JSON.stringify(event)).join("\n")}\n`);
  return lines as Record<string, unknown>[];
}

describe("compareWithLog inside coding-agent replay", () => {
  it("replays a recorded run to the same result, and runs no tool", async () => {
    const original = await recordedRun();
    await writeFile(join(base, "sum.js"), "用户后来改的\n");
    const replay = await cli([original.runId], compareWithLog);
    expect(replay.result, "重放的结果").toMatchObject({
      status: original.status,
      steps: original.steps,
      toolCalls: original.toolCalls,
    });
    expect(await readFile(join(base, "sum.js"), "utf8"), "重放不执行 edit_file").toBe(
      "用户后来改的\n",
    );
  });

  it("stops replay_diverged at the intent whose input was changed", async () => {
    const original = await recordedRun();
    const lines = await tamper(original.runId, (event) =>
      event.type === "tool_intent" && event.tool === "edit_file"
        ? { ...event, input: { path: "sum.js", old: "a - b", new: "a * b" } }
        : event,
    );
    const seq = lines.find((event) => event.tool === "edit_file")?.seq;
    const replay = await cli([original.runId], compareWithLog);
    expect(replay.result?.code, "日志里 edit_file 的输入被改过").toBe("replay_diverged");
    expect(replay.result?.reason, "原因要写出那条记录的 seq").toContain(`seq ${seq} `);
    expect(replay.code, "分叉的退出码是 1").toBe(1);
  });

  it("stops replay_diverged where a changed reply makes the runtime call another tool", async () => {
    const original = await recordedRun();
    await tamper(original.runId, (event) =>
      event.type === "model_reply" && event.step === 2
        ? {
            ...event,
            actions: [{ type: "tool_call", tool: "list_files", input: {}, callId: "call_2" }],
          }
        : event,
    );
    const replay = await cli([original.runId], compareWithLog);
    expect(replay.result?.code, "第 2 步的回复被改成 list_files，记录的却是 edit_file").toBe(
      "replay_diverged",
    );
  });

  it("stops replay_diverged at run_finished when the recorded end was changed", async () => {
    const original = await recordedRun();
    const lines = await tamper(original.runId, (event) =>
      event.type === "run_finished" ? { ...event, toolCalls: 5 } : event,
    );
    const replay = await cli([original.runId], compareWithLog);
    expect(replay.result?.code, "记录的 toolCalls 被改成 5").toBe("replay_diverged");
    expect(replay.result?.reason, "原因要写出 run_finished 的 seq").toContain(
      `seq ${lines.at(-1)?.seq} `,
    );
  });
});
