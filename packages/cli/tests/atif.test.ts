/**
 * `coding-agent trace <runId> --atif <file>`: a run as an ATIF v1.4 trajectory (Harbor's RFC
 * 0001), checked against the format's field list, keeping every step, tool call, observation
 * and token count of the run's state log.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtifTrajectorySchema } from "../src/report/atif.ts";
import { readRunAtif } from "../src/report/run-atif.ts";
import { captureCli, runScripted } from "./support/run-cli.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "atif-"));
  await writeFile(join(dir, "notes.txt"), "第一行\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const usage = (inputTokens: number, outputTokens: number, extra = {}) => ({
  inputTokens,
  outputTokens,
  ...extra,
});

describe("coding-agent trace --atif", () => {
  it("writes every step, call, observation and token count of a run, valid against ATIF v1.4", async () => {
    const run = await runScripted({
      workspace: dir,
      scriptDir: dir,
      flags: ["--finish-gate", "none"],
      turns: [
        {
          actions: [
            { type: "message", content: "先看看。" },
            { type: "tool_call", tool: "read_file", input: { path: "notes.txt" } },
            { type: "tool_call", tool: "read_file", input: { path: "missing.txt" } },
          ],
          usage: usage(100, 20, { cachedInputTokens: 40, reasoningTokens: 5 }),
          reasoning: { text: "两个文件都读一下。" },
        },
        { action: { type: "finish", summary: "读完了" }, usage: usage(150, 10) },
      ],
    });
    expect(run.code).toBe(0);
    const file = join(dir, "run.atif.json");
    const written = await captureCli(["trace", run.result.runId, "--atif", file]);
    expect(written.code).toBe(0);
    expect(written.stderr).toContain("ATIF 轨迹已写入");
    const trajectory = AtifTrajectorySchema.parse(JSON.parse(await readFile(file, "utf8")));
    expect(trajectory.schema_version).toBe("ATIF-v1.4");
    expect(trajectory.session_id).toBe(run.result.runId);
    expect(trajectory.steps.map((step) => step.source)).toEqual(["user", "agent", "agent"]);
    const [goal, first, last] = trajectory.steps;
    expect(goal?.message).toBe("看看仓库");
    expect(first).toMatchObject({
      message: "先看看。",
      reasoning_content: "两个文件都读一下。",
      metrics: {
        prompt_tokens: 100,
        completion_tokens: 20,
        cached_tokens: 40,
        extra: { reasoning_tokens: 5 },
      },
    });
    expect(first?.tool_calls?.map((c) => [c.function_name, c.arguments])).toEqual([
      ["read_file", { path: "notes.txt" }],
      ["read_file", { path: "missing.txt" }],
    ]);
    // Each call's result is its observation, paired by id: the value, or the error.
    const results = first?.observation?.results ?? [];
    expect(results.map((r) => r.source_call_id)).toEqual(
      first?.tool_calls?.map((c) => c.tool_call_id),
    );
    expect(results[0]?.content).toContain("第一行");
    expect(JSON.parse(results[1]?.content ?? "{}")).toMatchObject({ ok: false });
    expect(last).toMatchObject({
      message: "读完了",
      metrics: { prompt_tokens: 150, completion_tokens: 10 },
    });
    expect(trajectory.final_metrics).toMatchObject({
      total_prompt_tokens: 250,
      total_completion_tokens: 30,
      total_cached_tokens: 40,
      total_steps: 3,
    });
    expect(trajectory.extra).toEqual({ status: "completed", code: "finished" });
  });

  it("the schema refuses what the RFC does not define: an unknown field, a bad source, gaps in step_id", () => {
    const valid = {
      schema_version: "ATIF-v1.4",
      session_id: "s",
      agent: { name: "a", version: "1" },
      steps: [{ step_id: 1, source: "user", message: "m" }],
    };
    expect(AtifTrajectorySchema.safeParse(valid).success).toBe(true);
    for (const broken of [
      { ...valid, steps: [{ step_id: 1, source: "user", message: "m", thoughts: "x" }] },
      { ...valid, steps: [{ step_id: 1, source: "assistant", message: "m" }] },
      { ...valid, steps: [{ step_id: 2, source: "user", message: "m" }] },
      { ...valid, agent: { name: "a" } },
      { ...valid, schema_version: "1.4" },
    ]) {
      expect(AtifTrajectorySchema.safeParse(broken).success, JSON.stringify(broken)).toBe(false);
    }
  });

  it("--atif without a file is a usage error; a run without a state log is named, exit 2", async () => {
    expect((await captureCli(["trace", "x", "--atif", " "])).code).toBe(2);
    // A run's folder with its trace but no state log: the report could be made, the ATIF not.
    const run = await runScripted({
      workspace: dir,
      scriptDir: dir,
      flags: ["--finish-gate", "none"],
      turns: [{ action: { type: "finish", summary: "好" } }],
    });
    await rm(join(run.result.runDir, "state.jsonl"));
    const missing = await captureCli(["trace", run.result.runId, "--atif", join(dir, "o.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("写不了 ATIF：读不到状态日志");
  });
});

/** A finished run that read a file, then finished: its folder, its state log's lines. */
async function finishedRun() {
  const run = await runScripted({
    workspace: dir,
    scriptDir: dir,
    flags: ["--finish-gate", "none"],
    turns: [
      {
        action: { type: "tool_call", tool: "read_file", input: { path: "notes.txt" } },
        usage: usage(100, 20),
      },
      { action: { type: "finish", summary: "读完了" }, usage: usage(150, 10) },
    ],
  });
  expect(run.code).toBe(0);
  const file = join(run.result.runDir, "state.jsonl");
  const lines = (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
  return { runDir: run.result.runDir as string, runId: run.result.runId as string, file, lines };
}

/** The log cut right after the first tool intent, as a kill during that call leaves it. */
const untilFirstIntent = (lines: readonly string[]) =>
  lines.slice(0, lines.findIndex((line) => JSON.parse(line).type === "tool_intent") + 1);

describe("readRunAtif of a run that was cut short", () => {
  it("keeps the steps up to the kill, drops a line the kill tore in half, and marks it incomplete", async () => {
    const run = await finishedRun();
    const kept = untilFirstIntent(run.lines);
    // What a SIGKILL in the middle of appending the tool's result leaves: half a line.
    const torn = run.lines[kept.length]?.slice(0, 25) ?? "";
    await writeFile(run.file, `${kept.join("\n")}\n${torn}`);
    const read = await readRunAtif(run.runDir, "crash");
    if (!read.ok) throw new Error(read.message);
    const trajectory = AtifTrajectorySchema.parse(read.trajectory);
    expect(trajectory.session_id).toBe(run.runId);
    expect(trajectory.steps.map((step) => step.source)).toEqual(["user", "agent"]);
    const call = trajectory.steps[1];
    expect(call?.tool_calls?.map((each) => each.function_name)).toEqual(["read_file"]);
    // The call never returned: its observation names it, with no content.
    expect(call?.observation?.results).toEqual([
      { source_call_id: call?.tool_calls?.[0]?.tool_call_id },
    ]);
    expect(trajectory.extra).toEqual({ incomplete: true, incomplete_reason: "crash" });
    expect(trajectory.notes).toContain("没有输出结果就结束了");
    expect(trajectory.notes).toContain("最后一行写到一半就中断了");
    expect(trajectory.final_metrics?.total_prompt_tokens).toBe(100);
  });

  it("marks a run an eval stopped at its time limit incomplete, even when its log ends with run_finished", async () => {
    const run = await finishedRun();
    const read = await readRunAtif(run.runDir, "timeout");
    if (!read.ok) throw new Error(read.message);
    expect(read.trajectory.extra).toEqual({
      status: "completed",
      code: "finished",
      incomplete: true,
      incomplete_reason: "timeout",
    });
    expect(read.trajectory.notes).toContain("时限");
  });

  it("a log that just stops, read by trace --atif with no one to say why, is incomplete (unfinished)", async () => {
    const run = await finishedRun();
    await writeFile(run.file, `${untilFirstIntent(run.lines).join("\n")}\n`);
    const file = join(dir, "cut.atif.json");
    const written = await captureCli(["trace", run.runId, "--atif", file]);
    expect(written.code, written.stderr).toBe(0);
    const trajectory = AtifTrajectorySchema.parse(JSON.parse(await readFile(file, "utf8")));
    expect(trajectory.extra).toEqual({ incomplete: true, incomplete_reason: "unfinished" });
    expect(trajectory.notes).not.toContain("最后一行");
  });

  it("a finished run's trajectory carries no incomplete mark and no notes", async () => {
    const run = await finishedRun();
    const read = await readRunAtif(run.runDir);
    if (!read.ok) throw new Error(read.message);
    expect(read.trajectory.extra).toEqual({ status: "completed", code: "finished" });
    expect(read.trajectory.notes).toBeUndefined();
  });

  it("is no trajectory when nothing was left: an empty log, a torn first line, no run folder", async () => {
    const run = await finishedRun();
    await writeFile(run.file, "");
    const empty = await readRunAtif(run.runDir, "timeout");
    expect(empty).toEqual({
      ok: false,
      message: expect.stringContaining("不是以 run_started 开头"),
    });
    await writeFile(run.file, run.lines[0]?.slice(0, 30) ?? "");
    expect((await readRunAtif(run.runDir, "crash")).ok).toBe(false);
    await rm(run.runDir, { recursive: true });
    const gone = await readRunAtif(run.runDir, "crash");
    expect(gone).toEqual({ ok: false, message: expect.stringContaining("读不到状态日志") });
  });
});
