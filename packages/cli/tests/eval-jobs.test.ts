/**
 * `coding-agent eval` with trials and a job folder: `--trials k` and pass@k computed from the
 * recorded outcomes, `eval resume <job>` after a producer killed mid-suite, and `eval regrade
 * <job>` on kept workspaces without any model call.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { passAtK } from "@coding-agent/eval";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addTask, copyBundledSuite } from "./support/eval-suite.ts";
import { BIN, spawnBin } from "./support/spawn-bin.ts";

let base = "";
let home = "";
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "eval-jobs-"));
  home = path.join(base, "home");
});
afterEach(() => rm(base, { recursive: true, force: true }));

const env = () => ({ PATH: process.env.PATH, CODING_AGENT_HOME: home });
const evalBin = (args: readonly string[]) => spawnBin(["eval", ...args], { env: env() });
const jobIds = () => readdir(path.join(home, "evals")).catch(() => [] as string[]);
const runCount = async () => (await readdir(path.join(home, "runs")).catch(() => [])).length;

/** Every trial file of a job: `<taskId>#<trial>` → its text. */
async function trialFiles(jobId: string): Promise<Map<string, string>> {
  const dir = path.join(home, "evals", jobId, "trials");
  const files = new Map<string, string>();
  for (const task of await readdir(dir).catch(() => [] as string[]))
    for (const name of await readdir(path.join(dir, task)))
      if (name.endsWith(".json"))
        files.set(
          `${task}#${name.slice(0, -5)}`,
          await readFile(path.join(dir, task, name), "utf8"),
        );
  return files;
}

/** A task that only finishes; its test passes for the first `passes` graders to run, across trials. */
async function addCountedTask(suite: string, id: string, passes: number, tokens: string) {
  // mkdir is atomic: each grader run takes the next free token, whatever the concurrency.
  const take = `i=0; while ! mkdir "${tokens}/$i" 2>/dev/null; do i=$((i+1)); done; [ "$i" -lt ${passes} ]`;
  await addTask(suite, {
    id,
    testCommand: take,
    args: ["--finish-gate", "none"],
    script: [{ action: { type: "finish", summary: "好了" } }],
  });
}

/** A suite of finishing tasks, each first waiting `ms` (so a test can stop the producer mid-suite). */
async function addWaitingTasks(suite: string, ids: readonly string[], ms: number) {
  for (const id of ids)
    await addTask(suite, {
      id,
      args: ["--finish-gate", "none"],
      script: [
        { action: { type: "tool_call", tool: "sleep", input: { ms } } },
        { action: { type: "finish", summary: "等完了" } },
      ],
    });
}

describe("coding-agent eval --trials <k>", () => {
  it("runs each task k times and reports pass@1 and pass@k as the estimator gives on the recorded outcomes", async () => {
    const suite = path.join(base, "suite");
    const tokensA = await mkdtemp(path.join(base, "tokens-a-"));
    const tokensB = await mkdtemp(path.join(base, "tokens-b-"));
    await addCountedTask(suite, "two-of-five", 2, tokensA);
    await addCountedTask(suite, "none-of-five", 0, tokensB);
    const junit = path.join(base, "results.xml");
    const page = path.join(base, "report.html");
    const ran = await evalBin([suite, "--trials", "5", "--json", "--junit", junit, "--html", page]);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout);

    const [jobId] = await jobIds();
    expect(ran.stderr).toContain(`评测作业 ${jobId}`);
    const recorded = [...(await trialFiles(jobId as string)).values()].map((text) =>
      JSON.parse(text),
    );
    expect(recorded).toHaveLength(10);
    const passesOf = (id: string) =>
      recorded.filter((file) => file.taskId === id && file.result.passed).length;
    expect(new Set(recorded.map((file) => `${file.taskId}#${file.trial}`)).size).toBe(10);
    // The estimator by hand on what the job folder recorded.
    const c = [passesOf("two-of-five"), passesOf("none-of-five")];
    expect(c).toEqual([2, 0]);
    const at = (k: number) => (passAtK(5, c[0] as number, k) + passAtK(5, c[1] as number, k)) / 2;
    expect(report.trials).toBe(5);
    expect(report.passAt["1"]).toBeCloseTo(at(1), 12);
    expect(report.passAt["5"]).toBeCloseTo(at(5), 12);
    expect(report.passAt).toEqual({ "1": 0.2, "5": 0.5 });
    expect(report.tasks).toHaveLength(10);
    expect(report.tasks.map((task: { trial: number }) => task.trial).sort()).toEqual([
      1, 1, 2, 2, 3, 3, 4, 4, 5, 5,
    ]);
    expect(await readFile(junit, "utf8")).toContain('<property name="pass@5" value="0.5"/>');
    expect(await readFile(page, "utf8")).toContain("pass@5 0.500");

    const terminal = await evalBin(["resume", jobId as string]);
    expect(terminal.code, terminal.stderr).toBe(0);
    expect(terminal.stderr).toContain("已有 10 次试验的结果，还要运行 0 次");
    expect(terminal.stdout).toContain("pass@1 0.200 · pass@5 0.500");
  });

  it("gates on pass rates with trials: a drop within the tolerance passes, a larger one exits 1", async () => {
    const suite = path.join(base, "suite");
    const tokens = await mkdtemp(path.join(base, "tokens-"));
    await addCountedTask(suite, "flaky", 100, tokens);
    const baseline = path.join(base, "baseline.json");
    const first = await evalBin([
      suite,
      "--trials",
      "5",
      "--baseline",
      baseline,
      "--update-baseline",
    ]);
    expect(first.code, first.stderr).toBe(0);
    // Now only 4 of the next 5 pass (a 20-point drop: noise), then 2 of 5 (60 points: a regression).
    await rm(tokens, { recursive: true });
    await addCountedTask(suite, "flaky", 4, await mkdtemp(path.join(base, "tokens-")));
    const noise = await evalBin([suite, "--trials", "5", "--baseline", baseline, "--json"]);
    expect(noise.code, noise.stderr).toBe(0);
    expect(JSON.parse(noise.stdout).regressions).toEqual([]);
    await addCountedTask(suite, "flaky", 2, await mkdtemp(path.join(base, "tokens-")));
    const worse = await evalBin([suite, "--trials", "5", "--baseline", baseline, "--json"]);
    expect(worse.code).toBe(1);
    expect(JSON.parse(worse.stdout).regressions).toEqual(["flaky"]);
    expect(worse.stderr).toContain("flaky（100% → 40%）");
  });
});

describe("coding-agent eval resume <job>", () => {
  it("after a producer SIGKILLed mid-trial runs only the trials without a result: none lost, none twice", async () => {
    const suite = path.join(base, "suite");
    const go = path.join(base, "go");
    await addWaitingTasks(suite, ["t1", "t2"], 1);
    // Its grader waits for `go`: while it is missing the trial is mid-run, however slow the machine.
    await addTask(suite, {
      id: "t3-held",
      testCommand: `while [ ! -e '${go}' ]; do sleep 0.05; done; node --test`,
      args: ["--finish-gate", "none"],
      script: [{ action: { type: "finish", summary: "好了" } }],
    });
    const producer = spawn(
      process.execPath,
      [BIN, "eval", suite, "--trials", "2", "--concurrency", "1"],
      {
        stdio: ["ignore", "ignore", "pipe"],
        env: env(),
      },
    );
    let stderr = "";
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      producer.once("exit", (_code, signal) => resolve(signal)),
    );
    // Killed, without warning, once t1 and t2 are recorded: t3-held #1 is running, held.
    await new Promise<void>((resolve) => {
      producer.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        if (stderr.split("\n").filter((line) => /^\[\d+\/6\] /.test(line)).length >= 4) resolve();
      });
    });
    producer.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const [jobId] = await jobIds();
    const before = await trialFiles(jobId as string);
    expect([...before.keys()].sort()).toEqual(["t1#1", "t1#2", "t2#1", "t2#2"]);

    await writeFile(go, "");
    const resumed = await evalBin(["resume", jobId as string, "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("已有 4 次试验的结果，还要运行 2 次");
    const after = await trialFiles(jobId as string);
    // Every trial finished before the kill is kept as it was, byte for byte.
    for (const [key, text] of before) expect(after.get(key), key).toBe(text);
    expect([...after.keys()].sort()).toEqual([
      "t1#1",
      "t1#2",
      "t2#1",
      "t2#2",
      "t3-held#1",
      "t3-held#2",
    ]);
    // The resume ran exactly the trials that had no result, each once.
    const progress = resumed.stderr.split("\n").filter((line) => /^\[\d+\/\d+\] /.test(line));
    expect(progress.map((line) => line.split(" ").slice(2, 4).join(" ")).sort()).toEqual([
      "t3-held #1",
      "t3-held #2",
    ]);
    const report = JSON.parse(resumed.stdout);
    expect(report).toMatchObject({ passed: 6, total: 6, trials: 2 });
    // Each recorded trial names its own run: no run counted for two trials.
    const runIds = [...after.values()].map((text) => JSON.parse(text).result.runId);
    expect(new Set(runIds).size).toBe(6);
  });

  it("refuses a job that does not exist, and the job's own settings, with exit 2", async () => {
    const missing = await evalBin(["resume", "20260101-000000Z-abcdef"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("没有这个作业");
    const recorded = await evalBin(["resume", "20260101-000000Z-abcdef", "--trials", "3"]);
    expect(recorded.code).toBe(2);
    expect(recorded.stderr).toContain("--trials 由作业记录决定");
  });
});

describe("one owner per job", () => {
  it("refuses to resume a job a live process owns, and takes over the lock of a dead one", async () => {
    const suite = path.join(base, "suite");
    await addWaitingTasks(suite, ["quick"], 1);
    expect((await evalBin([suite])).code).toBe(0);
    const [jobId] = await jobIds();
    const lock = path.join(home, "evals", jobId as string, "owner.lock");
    await writeFile(lock, `${process.pid}\n`);
    const owned = await evalBin(["resume", jobId as string]);
    expect(owned.code).toBe(2);
    expect(owned.stderr).toContain(`正由进程 ${process.pid} 运行`);

    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    await writeFile(lock, `${gone.pid}\n`);
    const resumed = await evalBin(["resume", jobId as string]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("已有 1 次试验的结果，还要运行 0 次");
  });
});

describe("coding-agent eval regrade <job>", () => {
  it("grades the kept workspaces again with the suite's current test command, without any run", async () => {
    const suite = await copyBundledSuite();
    const ran = await evalBin([suite, "--keep-workspaces", "--trials", "2", "--json"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ passed: 4, total: 8 });
    const [jobId] = await jobIds();
    const runsBefore = await runCount();

    // A stricter grader for fix-sum: its tests must also find a file no agent wrote.
    const file = path.join(suite, "fix-sum", "task.json");
    const task = JSON.parse(await readFile(file, "utf8"));
    await writeFile(
      file,
      JSON.stringify({ ...task, testCommand: `${task.testCommand} && test -f NOTES.md` }),
    );
    const regraded = await evalBin(["regrade", jobId as string, "--json"]);
    expect(regraded.code, regraded.stderr).toBe(0);
    expect(regraded.stderr).toContain("不调用模型");
    const report = JSON.parse(regraded.stdout);
    expect(report).toMatchObject({ passed: 2, total: 8 });
    const fixSum = report.tasks.filter((row: { id: string }) => row.id === "fix-sum");
    expect(fixSum.map((row: { passed: boolean }) => row.passed)).toEqual([false, false]);
    expect(fixSum[0].graders.tests_pass.detail).toContain("NOTES.md");
    // No agent ran: no new run folder, and each trial keeps the run it had.
    expect(await runCount()).toBe(runsBefore);
    const files = [...(await trialFiles(jobId as string)).values()].map((text) => JSON.parse(text));
    expect(files.every((record) => typeof record.regradedAt === "string")).toBe(true);
    // A regrade runs no agent: each trial keeps the trajectory of the run it had.
    expect(files.map((record) => record.trajectory).sort()).toEqual(
      ["false-completed", "fix-slugify", "fix-sum", "forbidden-write"].flatMap((id) => [
        `atif/${id}/1.json`,
        `atif/${id}/2.json`,
      ]),
    );
    await rm(path.dirname(suite), { recursive: true, force: true });
  });

  it("after a regrade SIGKILLed mid-trial keeps every trial file whole, and a second regrade finishes", async () => {
    const suite = path.join(base, "suite");
    await addWaitingTasks(suite, ["r1", "r2", "r3"], 1);
    expect((await evalBin([suite, "--keep-workspaces"])).code).toBe(0);
    const [jobId] = await jobIds();
    const runsBefore = await runCount();
    // r3's grader now waits for `go`: the regrade is held inside it, however slow the machine.
    const go = path.join(base, "go");
    const file = path.join(suite, "r3", "task.json");
    const task = JSON.parse(await readFile(file, "utf8"));
    await writeFile(
      file,
      JSON.stringify({
        ...task,
        testCommand: `while [ ! -e '${go}' ]; do sleep 0.05; done; ${task.testCommand}`,
      }),
    );
    const regrading = spawn(
      process.execPath,
      [BIN, "eval", "regrade", jobId as string, "--concurrency", "1"],
      { stdio: ["ignore", "ignore", "pipe"], env: env() },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      regrading.once("exit", (_code, signal) => resolve(signal)),
    );
    let stderr = "";
    await new Promise<void>((resolve) => {
      regrading.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        if (stderr.split("\n").filter((line) => /^\[\d+\/3\] /.test(line)).length >= 2) resolve();
      });
    });
    regrading.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const killed = [...(await trialFiles(jobId as string)).entries()].map(
      ([key, text]) => [key, typeof JSON.parse(text).regradedAt] as const,
    );
    // Each file is the old one or the new one, whole: r1 and r2 regraded, r3 not yet.
    expect(killed.sort()).toEqual([
      ["r1#1", "string"],
      ["r2#1", "string"],
      ["r3#1", "undefined"],
    ]);

    await writeFile(go, "");
    const again = await evalBin(["regrade", jobId as string, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ passed: 3, total: 3 });
    const files = [...(await trialFiles(jobId as string)).values()].map((text) => JSON.parse(text));
    expect(files.every((record) => typeof record.regradedAt === "string")).toBe(true);
    expect(await runCount()).toBe(runsBefore);
  });

  it("refuses a job that kept no workspaces, with exit 2", async () => {
    const suite = path.join(base, "suite");
    await addWaitingTasks(suite, ["quick"], 1);
    expect((await evalBin([suite])).code).toBe(0);
    const [jobId] = await jobIds();
    const regraded = await evalBin(["regrade", jobId as string]);
    expect(regraded.code).toBe(2);
    expect(regraded.stderr).toContain("--keep-workspaces");
  });
});
