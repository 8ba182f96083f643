/**
 * An eval job keeps one ATIF file per trial: each trial's run, written into the job folder as
 * the trial finishes, valid against ATIF v1.4's field list, with every step, tool call,
 * observation and token count of that run's state log.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
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

/** A job's only job folder, and one of its trial files. */
async function onlyJob() {
  const [jobId] = await readdir(path.join(home, "evals"));
  const job = path.join(home, "evals", jobId as string);
  const trialFile = async (task: string) =>
    JSON.parse(await readFile(path.join(job, "trials", task, "1.json"), "utf8")) as {
      trajectory?: string;
      result: { code: string; runId?: string };
    };
  return { job, trialFile };
}

/**
 * Node code for a task's run_command that does `damage` to its own run's records (found by
 * the run's goal), then writes `<markers>/<id>.pid` holding its parent's pid — the
 * `coding-agent run` the test kills — and waits for that parent to die.
 */
function killedRunCommand(options: {
  readonly goal: string;
  readonly damage: "torn" | "empty" | "gone";
  readonly markers: string;
  readonly id: string;
}): string {
  const runs = path.join(home, "runs");
  return `
const fs = require("fs"), path = require("path");
const dir = fs.readdirSync(${JSON.stringify(runs)})
  .map((id) => path.join(${JSON.stringify(runs)}, id))
  .find((dir) => {
    try {
      const first = fs.readFileSync(path.join(dir, "state.jsonl"), "utf8").split("\\n")[0];
      return JSON.parse(first).goal === ${JSON.stringify(options.goal)};
    } catch { return false; }
  });
const state = path.join(dir, "state.jsonl");
const damage = ${JSON.stringify(options.damage)};
// What a kill in the middle of appending a line leaves; an empty log; no run folder at all.
if (damage === "torn") fs.appendFileSync(state, '{"seq":99,"type":"tool_result","callId":"c');
if (damage === "empty") fs.truncateSync(state, 0);
if (damage === "gone") fs.rmSync(dir, { recursive: true, force: true });
const marker = path.join(${JSON.stringify(options.markers)}, ${JSON.stringify(options.id)});
fs.writeFileSync(marker + ".tmp", String(process.ppid));
fs.renameSync(marker + ".tmp", marker + ".pid");
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 100);
`;
}

/** SIGKILLs the pid in each `<markers>/<id>.pid` as it appears, until `done` settles. */
function killEachMarkedRun(markers: string, done: Promise<unknown>): Promise<string[]> {
  const killed: string[] = [];
  return new Promise((resolve) => {
    const poll = setInterval(async () => {
      for (const name of await readdir(markers)) {
        if (!name.endsWith(".pid") || killed.includes(name)) continue;
        killed.push(name);
        process.kill(Number(await readFile(path.join(markers, name), "utf8")), "SIGKILL");
      }
    }, 50);
    void done.finally(() => {
      clearInterval(poll);
      resolve(killed.sort());
    });
  });
}

describe("coding-agent eval: a trial whose run was cut short keeps what the run left", () => {
  it("a trial killed at its time limit gets the trajectory up to the kill, marked incomplete (timeout)", async () => {
    const suite = path.join(base, "suite");
    await addTask(suite, {
      id: "slow",
      goal: "睡很久",
      // A limit, not a measurement: long enough for the run to reach its sleep on a loaded machine.
      timeoutMs: 20_000,
      script: [
        { action: { type: "tool_call", tool: "sleep", input: { ms: 60_000 } } },
        { action: { type: "finish", summary: "醒了" } },
      ],
    });
    const ran = await spawnBin(["eval", suite, "--json"], { env: env() });
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stderr).not.toContain("警告");
    const row = JSON.parse(ran.stdout).tasks[0];
    expect(row).toMatchObject({ id: "slow", status: "error", code: "timeout" });
    const { job, trialFile } = await onlyJob();
    const file = await trialFile("slow");
    // The run the harness named is the one whose records exist.
    expect(file.result.runId).toBe(row.runId);
    expect(await readdir(path.join(home, "runs"))).toEqual([row.runId]);
    expect(file.trajectory).toBe("atif/slow/1.json");
    const trajectory = AtifTrajectorySchema.parse(
      JSON.parse(await readFile(path.join(job, file.trajectory as string), "utf8")),
    );
    expect(trajectory.session_id).toBe(row.runId);
    expect(trajectory.steps.map((step) => step.source)).toEqual(["user", "agent"]);
    expect(trajectory.steps[1]?.tool_calls?.map((call) => call.function_name)).toEqual(["sleep"]);
    expect(trajectory.extra).toMatchObject({ incomplete: true, incomplete_reason: "timeout" });
    expect(trajectory.notes).toContain("时限");
  });

  it("a killed run: a torn last line is dropped, an empty log or a missing folder is one warning, no trial lost", async () => {
    const suite = path.join(base, "suite");
    const markers = path.join(base, "markers");
    await mkdir(markers);
    for (const damage of ["torn", "empty", "gone"] as const) {
      const goal = `被杀掉（${damage}）`;
      await addTask(suite, {
        id: damage,
        goal,
        args: ["--allow-command", "node", "--sandbox", "none"],
        script: [
          {
            action: {
              type: "tool_call",
              tool: "run_command",
              input: {
                argv: ["node", "-e", killedRunCommand({ goal, damage, markers, id: damage })],
              },
            },
          },
          { action: { type: "finish", summary: "不会到这里" } },
        ],
      });
    }
    const running = spawnBin(["eval", suite, "--json", "--concurrency", "3"], { env: env() });
    const killed = await killEachMarkedRun(markers, running);
    const ran = await running;
    expect(killed).toEqual(["empty.pid", "gone.pid", "torn.pid"]);
    expect(ran.code, ran.stderr).toBe(1);
    const { job, trialFile } = await onlyJob();
    // Every trial is recorded, a crash with the id its run was given.
    const files = {
      torn: await trialFile("torn"),
      empty: await trialFile("empty"),
      gone: await trialFile("gone"),
    };
    for (const file of Object.values(files)) {
      expect(file.result.code).toBe("crash");
      expect(file.result.runId).toMatch(/^\d{8}-\d{6}Z-[0-9a-f]{6}$/);
    }
    expect(files.torn.trajectory).toBe("atif/torn/1.json");
    const trajectory = AtifTrajectorySchema.parse(
      JSON.parse(await readFile(path.join(job, files.torn.trajectory as string), "utf8")),
    );
    expect(trajectory.steps.map((step) => step.source)).toEqual(["user", "agent"]);
    const call = trajectory.steps[1]?.tool_calls?.[0];
    expect(call?.function_name).toBe("run_command");
    // The call never returned: its observation names it, with no content.
    expect(trajectory.steps[1]?.observation?.results).toEqual([
      { source_call_id: call?.tool_call_id },
    ]);
    expect(trajectory.extra).toEqual({ incomplete: true, incomplete_reason: "crash" });
    expect(trajectory.notes).toContain("最后一行写到一半就中断了");
    // Nothing left to read: no trajectory, and exactly one warning each.
    expect(files.empty.trajectory).toBeUndefined();
    expect(files.gone.trajectory).toBeUndefined();
    expect(await readdir(path.join(job, "atif"))).toEqual(["torn"]);
    const warnings = ran.stderr.split("\n").filter((line) => line.startsWith("警告："));
    expect(warnings).toHaveLength(2);
    expect(warnings.find((line) => line.includes("empty（crash）"))).toContain(
      "运行没有留下可读的记录",
    );
    expect(warnings.find((line) => line.includes("gone（crash）"))).toContain("读不到状态日志");
  });
});

/**
 * Turns a job into one recorded before ATIF files were kept: no `atif/` folder, no
 * `trajectory` in its trial files. Returns each trial file's text as it now is.
 */
async function asOldJob(job: string): Promise<Map<string, string>> {
  await rm(path.join(job, "atif"), { recursive: true });
  const texts = new Map<string, string>();
  for (const task of await readdir(path.join(job, "trials"))) {
    const file = path.join(job, "trials", task, "1.json");
    const { trajectory: _trajectory, ...old } = JSON.parse(await readFile(file, "utf8"));
    const text = `${JSON.stringify(old, null, 2)}\n`;
    await writeFile(file, text);
    texts.set(task, text);
  }
  return texts;
}

/** Every run folder under the home, and how many model replies their state logs hold. */
async function runsAndReplies() {
  const runs = (await readdir(path.join(home, "runs"))).sort();
  let replies = 0;
  for (const runId of runs) {
    const text = await readFile(path.join(home, "runs", runId, "state.jsonl"), "utf8").catch(
      () => "",
    );
    replies += text.split("\n").filter((line) => line.includes('"type":"model_reply"')).length;
  }
  return { runs, replies };
}

describe("coding-agent eval regrade / resume: a job recorded before ATIF gains its files", () => {
  it("regrade writes each missing trajectory from the kept run folders, without a run or a model call", async () => {
    const suite = path.join(base, "suite");
    for (const id of ["whole", "torn", "empty", "gone"]) await addReadingTask(suite, id);
    const first = await spawnBin(["eval", suite, "--keep-workspaces", "--json"], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    const { job, trialFile } = await onlyJob();
    const runIdOf = async (task: string) => (await trialFile(task)).result.runId as string;
    const stateOf = async (task: string) =>
      path.join(home, "runs", await runIdOf(task), "state.jsonl");
    await asOldJob(job);
    // The attacks on what the runs left: a log cut mid-line (its run_finished half written),
    // an empty log, a run folder that is gone.
    const torn = await readFile(await stateOf("torn"), "utf8");
    await writeFile(await stateOf("torn"), torn.slice(0, torn.length - 20));
    await writeFile(await stateOf("empty"), "");
    await rm(path.dirname(await stateOf("gone")), { recursive: true });
    const before = await runsAndReplies();

    const regraded = await spawnBin(["eval", "regrade", job, "--json"], { env: env() });
    expect(regraded.code, regraded.stderr).toBe(0);
    expect(await runsAndReplies()).toEqual(before);
    expect(regraded.stderr).toContain("从运行记录补写了 2 次试验的 ATIF 轨迹（不调用模型）");

    const whole = await trialFile("whole");
    expect(whole.trajectory).toBe("atif/whole/1.json");
    const trajectory = AtifTrajectorySchema.parse(
      JSON.parse(await readFile(path.join(job, "atif", "whole", "1.json"), "utf8")),
    );
    expect(trajectory.session_id).toBe(whole.result.runId);
    expect(trajectory.steps.map((step) => step.source)).toEqual(["user", "agent", "agent"]);
    expect(trajectory.extra).toEqual({ status: "completed", code: "finished" });

    const cut = AtifTrajectorySchema.parse(
      JSON.parse(
        await readFile(path.join(job, (await trialFile("torn")).trajectory ?? ""), "utf8"),
      ),
    );
    expect(cut.extra).toEqual({ incomplete: true, incomplete_reason: "unfinished" });
    expect(cut.notes).toContain("最后一行写到一半就中断了");

    expect((await trialFile("empty")).trajectory).toBeUndefined();
    expect((await trialFile("gone")).trajectory).toBeUndefined();
    const warnings = regraded.stderr.split("\n").filter((line) => line.startsWith("警告："));
    expect(warnings).toHaveLength(2);
    expect(warnings.find((line) => line.startsWith("警告：empty 的"))).toContain(
      "不是以 run_started 开头",
    );
    expect(warnings.find((line) => line.startsWith("警告：gone 的"))).toContain("读不到状态日志");
    // Every trial is still graded and reported.
    expect(JSON.parse(regraded.stdout)).toMatchObject({ passed: 4, total: 4 });
  });

  it("a resume of a finished job without kept workspaces writes them too, adding only `trajectory`", async () => {
    const suite = path.join(base, "suite");
    await addReadingTask(suite, "read-a");
    await addReadingTask(suite, "read-b");
    const first = await spawnBin(["eval", suite], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    const { job } = await onlyJob();
    const old = await asOldJob(job);
    const before = await runsAndReplies();

    const resumed = await spawnBin(["eval", "resume", job, "--json"], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain("警告");
    expect(await runsAndReplies()).toEqual(before);
    for (const task of ["read-a", "read-b"]) {
      const now = JSON.parse(await readFile(path.join(job, "trials", task, "1.json"), "utf8"));
      expect(now).toEqual({
        ...JSON.parse(old.get(task) ?? ""),
        trajectory: `atif/${task}/1.json`,
      });
      AtifTrajectorySchema.parse(
        JSON.parse(await readFile(path.join(job, now.trajectory), "utf8")),
      );
    }
  });
});
