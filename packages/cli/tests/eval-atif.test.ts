/**
 * An eval job keeps one ATIF file per trial: each trial's run, written into the job folder as
 * the trial finishes, valid against ATIF v1.4's field list, with every step, tool call,
 * observation and token count of that run's state log.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtifTrajectorySchema } from "../src/report/atif.ts";
import { addTask } from "./support/eval-suite.ts";
import { spawnBin } from "./support/spawn-bin.ts";

let base = "";
let home = "";
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "eval-atif-"));
  home = path.join(base, "home");
});
afterEach(() => rm(base, { recursive: true, force: true }));

const env = () => ({ PATH: process.env.PATH, CODING_AGENT_HOME: home });

/** A task whose run reads one file, fails to read another, then finishes: tokens on each reply. */
async function addReadingTask(suite: string, id: string) {
  await addTask(suite, {
    id,
    args: ["--finish-gate", "none"],
    script: [
      {
        actions: [
          { type: "message", content: "先看看测试。" },
          { type: "tool_call", tool: "read_file", input: { path: "ok.test.mjs" } },
          { type: "tool_call", tool: "read_file", input: { path: "missing.txt" } },
        ],
        usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40 },
      },
      {
        action: { type: "finish", summary: "看完了" },
        usage: { inputTokens: 150, outputTokens: 10 },
      },
    ],
  });
}

/** A run's state log, line by line. */
async function stateEvents(runId: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path.join(home, "runs", runId, "state.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

describe("coding-agent eval: one ATIF file per trial", () => {
  it("writes each trial's run into the job folder, valid, keeping every step, call, observation and token count", async () => {
    const suite = path.join(base, "suite");
    await addReadingTask(suite, "read-a");
    await addReadingTask(suite, "read-b");
    const ran = await spawnBin(["eval", suite, "--trials", "2", "--json"], { env: env() });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).not.toContain("警告");
    const [jobId] = await readdir(path.join(home, "evals"));
    const job = path.join(home, "evals", jobId as string);

    const trials: {
      taskId: string;
      trial: number;
      trajectory?: string;
      result: { runId: string };
    }[] = [];
    for (const task of ["read-a", "read-b"])
      for (const trial of [1, 2])
        trials.push(
          JSON.parse(await readFile(path.join(job, "trials", task, `${trial}.json`), "utf8")),
        );
    // One file per trial, where the trial file says, each a different run.
    expect(trials.map((file) => file.trajectory)).toEqual([
      "atif/read-a/1.json",
      "atif/read-a/2.json",
      "atif/read-b/1.json",
      "atif/read-b/2.json",
    ]);
    expect(new Set(trials.map((file) => file.result.runId)).size).toBe(4);

    for (const file of trials) {
      const trajectory = AtifTrajectorySchema.parse(
        JSON.parse(await readFile(path.join(job, file.trajectory as string), "utf8")),
      );
      expect(trajectory.schema_version).toBe("ATIF-v1.4");
      expect(trajectory.session_id).toBe(file.result.runId);
      // What the run's own state log holds, counted independently of the converter.
      const events = await stateEvents(file.result.runId);
      const replies = events.filter((event) => event.type === "model_reply");
      const intents = events.filter((event) => event.type === "tool_intent");
      const results = new Map(
        events
          .filter((event) => event.type === "tool_result")
          .map((event) => [event.callId as string, event]),
      );
      const agentSteps = trajectory.steps.filter((step) => step.source === "agent");
      expect(agentSteps).toHaveLength(replies.length);
      const calls = agentSteps.flatMap((step) => step.tool_calls ?? []);
      expect(calls.map((call) => [call.tool_call_id, call.function_name, call.arguments])).toEqual(
        intents.map((intent) => [intent.callId, intent.tool, intent.input]),
      );
      const observed = agentSteps.flatMap((step) => step.observation?.results ?? []);
      expect(observed.map((result) => result.source_call_id)).toEqual(
        intents.map((intent) => intent.callId),
      );
      for (const result of observed) {
        const logged = results.get(result.source_call_id as string);
        expect(logged, result.source_call_id).toBeDefined();
        if (logged?.ok) expect(result.content).toContain("test(");
        else expect(JSON.parse(result.content ?? "{}")).toMatchObject({ ok: false });
      }
      const tokens = (key: string) =>
        replies.reduce(
          (sum, reply) => sum + Number((reply.usage as Record<string, number>)?.[key] ?? 0),
          0,
        );
      expect(agentSteps.map((step) => step.metrics?.prompt_tokens)).toEqual(
        replies.map((reply) => (reply.usage as Record<string, number>).inputTokens),
      );
      expect(trajectory.final_metrics).toMatchObject({
        total_prompt_tokens: tokens("inputTokens"),
        total_completion_tokens: tokens("outputTokens"),
        total_cached_tokens: tokens("cachedInputTokens"),
        total_steps: trajectory.steps.length,
      });
      expect(tokens("inputTokens")).toBe(250);
      expect(trajectory.extra).toEqual({ status: "completed", code: "finished" });
    }
  });
});
