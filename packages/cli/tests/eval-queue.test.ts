import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtifTrajectorySchema } from "../src/report/atif.ts";
import { addTask, copyBundledSuite } from "./support/eval-suite.ts";
import { freePort, startRedis } from "./support/redis-server.ts";
import { BIN, spawnBin } from "./support/spawn-bin.ts";

interface Worker {
  readonly child: ChildProcess;
  /** Resolves once the worker's stderr contains `text`. */
  readonly waitFor: (text: string) => Promise<void>;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/** Every worker a test started; afterAll kills those still running, so a failed test leaves none. */
const started: ChildProcess[] = [];

/** `coding-agent eval worker --queue <url>`, with short lock and stall settings so a test waits seconds. */
function startWorker(url: string, tmp: string): Worker {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "eval",
      "worker",
      "--queue",
      url,
      "--concurrency",
      "1",
      "--lock-duration-ms",
      "2000",
      "--stalled-interval-ms",
      "1000",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TMPDIR: tmp },
    },
  );
  started.push(child);
  let stderr = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const waiter of waiters) if (stderr.includes(waiter.text)) waiter.resolve();
  });
  return {
    child,
    stderr: () => stderr,
    waitFor: (text) =>
      new Promise((resolve) => {
        if (stderr.includes(text)) resolve();
        else waiters.push({ text, resolve });
      }),
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
  };
}

/** `redis-cli -p <port> …`'s stdout. */
function redisCli(port: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("redis-cli", ["-p", port, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.once("error", reject);
    child.once("close", () => resolve(out));
  });
}

/** A report's tasks without what differs from run to run (durations, run ids). */
function comparable(report: { tasks: Record<string, unknown>[] }) {
  return {
    ...report,
    tasks: report.tasks.map(({ durationMs: _duration, runId: _runId, ...task }) => task),
  };
}

// Several CLI processes and stalled-job recovery per test, on a loaded machine: a generous
// timeout that only turns a hang into a failure.
describe("coding-agent eval --queue redis://… with eval worker", { timeout: 300_000 }, () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let suite = "";
  let tmp = "";
  /** While this file is missing, a-held's grader waits: its trial is mid-run, however slow the machine. */
  let go = "";

  beforeAll(async () => {
    redis = await startRedis();
    suite = await copyBundledSuite();
    tmp = await mkdtemp(path.join(tmpdir(), "coding-agent-eval-workers-"));
    go = path.join(tmp, "go");
    await writeFile(go, "");
    // First in id order, so the first worker, alone on the queue, takes it.
    await addTask(suite, {
      id: "a-held",
      testCommand: `while [ ! -e '${go}' ]; do sleep 0.05; done; node --test`,
      args: ["--finish-gate", "none"],
      script: [{ action: { type: "finish", summary: "好了" } }],
    });
  });

  afterAll(async () => {
    for (const child of started)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await redis?.stop();
    await rm(path.dirname(suite), { recursive: true, force: true });
    await rm(tmp, { recursive: true, force: true });
  });

  it("survives a worker killed mid-task: every task gets exactly one result, equal to a local run's", async () => {
    const local = await spawnBin(["eval", suite, "--json"], {
      env: { PATH: process.env.PATH },
    });
    expect(local.code, local.stderr).toBe(0);

    await rm(go);
    const producer = spawnBin(["eval", suite, "--queue", redis.url, "--json"], {
      env: { PATH: process.env.PATH },
    });
    const first = startWorker(redis.url, tmp);
    await first.waitFor("开始 a-held");
    const second = startWorker(redis.url, tmp);
    await second.waitFor("eval worker 已连接");
    // The first worker dies holding a-held: no cleanup, no lock released.
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe(null);
    await writeFile(go, "");

    const queued = await producer;
    expect(queued.code, queued.stderr).toBe(0);
    // BullMQ's stalled-job check gave the task to the surviving worker.
    expect(second.stderr()).toContain("开始 a-held");
    expect(second.stderr()).toContain("✓ a-held");
    const progress = queued.stderr.split("\n").filter((line) => /^\[\d\/5\] /.test(line));
    expect(progress).toHaveLength(5);
    const ids = progress.map((line) => line.split(" ")[2]);
    expect(new Set(ids).size).toBe(5);

    expect(comparable(JSON.parse(queued.stdout))).toEqual(comparable(JSON.parse(local.stdout)));

    second.child.kill("SIGINT");
    expect(await second.exited).toBe(130);
  });

  it("refuses the result of a paused worker that comes back after its task went to another", async () => {
    await rm(go);
    const producer = spawnBin(["eval", suite, "--queue", redis.url, "--json"], {
      env: { PATH: process.env.PATH },
    });
    const first = startWorker(redis.url, tmp);
    await first.waitFor("开始 a-held");
    // Frozen, not dead: its lock lapses while it holds the task.
    first.child.kill("SIGSTOP");
    const second = startWorker(redis.url, tmp);
    await second.waitFor("开始 a-held");
    await writeFile(go, "");
    first.child.kill("SIGCONT");
    const queued = await producer;
    expect(queued.code, queued.stderr).toBe(0);
    // The first worker finished its copy of the task too, and BullMQ refused its completion.
    await first.waitFor("✓ a-held");
    await first.waitFor("eval worker：");
    expect(first.stderr()).toMatch(/eval worker：.*(lock|Lock)/);
    const progress = queued.stderr.split("\n").filter((line) => /^\[\d\/5\] /.test(line));
    expect(progress.map((line) => line.split(" ")[2]).sort()).toEqual([
      "a-held",
      "false-completed",
      "fix-slugify",
      "fix-sum",
      "forbidden-write",
    ]);
    expect(JSON.parse(queued.stdout).tasks.map((task: { id: string }) => task.id)).toHaveLength(5);
    first.child.kill("SIGINT");
    second.child.kill("SIGINT");
    expect([await first.exited, await second.exited]).toEqual([130, 130]);
  });

  it("on Ctrl-C takes back the tasks no worker has taken and exits 130", async () => {
    const port = new URL(redis.url).port;
    const marker = path.join(tmp, "queued");
    // No worker runs: every task waits. SIGINT once they are on the queue.
    const poll = setInterval(async () => {
      const keys = await redisCli(port, [
        "--scan",
        "--pattern",
        "bull:coding-agent-eval:*.fix-sum",
      ]);
      if (keys.trim() !== "") {
        clearInterval(poll);
        await writeFile(marker, "");
      }
    }, 100);
    const ran = await spawnBin(["eval", suite, "--queue", redis.url], {
      env: { PATH: process.env.PATH },
      interruptWhenExists: marker,
    });
    clearInterval(poll);
    expect(ran.code).toBe(130);
    expect(await redisCli(port, ["--scan", "--pattern", "bull:coding-agent-eval:*.*"])).toBe("");
    expect(await redisCli(port, ["LLEN", "bull:coding-agent-eval:wait"])).toBe("0\n");
  });

  // After the Ctrl-C test, which expects the queue to hold nothing of earlier runs: a killed
  // producer leaves the jobs of its recorded trials behind.
  it("resumes a --trials job whose producer was SIGKILLed: every trial runs once on the workers", async () => {
    const home = await mkdtemp(path.join(tmp, "home-"));
    const env = { PATH: process.env.PATH, CODING_AGENT_HOME: home };
    const producer = spawn(
      process.execPath,
      [BIN, "eval", suite, "--queue", redis.url, "--trials", "2"],
      { stdio: ["ignore", "ignore", "pipe"], env },
    );
    started.push(producer);
    let producerErr = "";
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      producer.once("exit", (_code, signal) => resolve(signal)),
    );
    const worker = startWorker(redis.url, tmp);
    // Killed once two trials are recorded; the worker goes on with the queue meanwhile.
    await new Promise<void>((resolve) => {
      producer.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        producerErr += chunk;
        if (producerErr.split("\n").filter((line) => /^\[\d+\/10\] /.test(line)).length >= 2)
          resolve();
      });
    });
    producer.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const [jobId] = await readdir(path.join(home, "evals"));
    const trialsDir = path.join(home, "evals", jobId as string, "trials");
    const recorded = async () => {
      const files = new Map<string, string>();
      for (const task of await readdir(trialsDir))
        for (const name of await readdir(path.join(trialsDir, task)))
          if (name.endsWith(".json"))
            files.set(
              `${task} #${name.slice(0, -5)}`,
              await readFile(path.join(trialsDir, task, name), "utf8"),
            );
      return files;
    };
    const before = await recorded();

    const resumed = await spawnBin(
      ["eval", "resume", jobId as string, "--queue", redis.url, "--json"],
      {
        env,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ total: 10, trials: 2 });
    const after = await recorded();
    expect(after.size).toBe(10);
    for (const [key, text] of before) expect(after.get(key), key).toBe(text);
    // Whatever the worker finished while no producer listened was collected, not run again.
    const starts = worker
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("开始 "))
      .map((line) => line.slice(3));
    expect(starts.sort()).toEqual([...after.keys()].sort());
    // Each trial's trajectory was read on the worker's machine and came back with its result.
    for (const text of after.values()) {
      const file = JSON.parse(text);
      const atif = path.join(home, "evals", jobId as string, file.trajectory);
      const trajectory = AtifTrajectorySchema.parse(JSON.parse(await readFile(atif, "utf8")));
      expect(trajectory.session_id).toBe(file.result.runId);
    }
    worker.child.kill("SIGINT");
    expect(await worker.exited).toBe(130);
  });

  it("resumes a job whose worker was SIGKILLed mid-trial: that trial runs again on another worker, every other once", async () => {
    const home = await mkdtemp(path.join(tmp, "home-"));
    const env = { PATH: process.env.PATH, CODING_AGENT_HOME: home };
    const own = path.join(await mkdtemp(path.join(tmp, "suite-")), "suite");
    const go = path.join(path.dirname(own), "go");
    await addTask(own, {
      id: "a-quick",
      args: ["--finish-gate", "none"],
      script: [{ action: { type: "finish", summary: "好了" } }],
    });
    // Its grader waits for `go`: while it is missing the trial is mid-run, however slow the machine.
    await addTask(own, {
      id: "b-held",
      testCommand: `while [ ! -e '${go}' ]; do sleep 0.05; done; node --test`,
      args: ["--finish-gate", "none"],
      script: [{ action: { type: "finish", summary: "好了" } }],
    });
    const producer = spawn(
      process.execPath,
      [BIN, "eval", own, "--queue", redis.url, "--trials", "2"],
      { stdio: ["ignore", "ignore", "ignore"], env },
    );
    started.push(producer);
    const producerExited = new Promise<NodeJS.Signals | null>((resolve) =>
      producer.once("exit", (_code, signal) => resolve(signal)),
    );
    // Alone on the queue with one lane, the first worker takes the trials in queue order.
    const first = startWorker(redis.url, tmp);
    await first.waitFor("开始 b-held #1");
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe(null);
    producer.kill("SIGKILL");
    expect(await producerExited).toBe("SIGKILL");
    const [jobId] = await readdir(path.join(home, "evals"));
    const job = path.join(home, "evals", jobId as string);
    const recorded = async () => {
      const files = new Map<string, string>();
      for (const task of await readdir(path.join(job, "trials")).catch(() => [] as string[]))
        for (const name of await readdir(path.join(job, "trials", task)))
          if (name.endsWith(".json"))
            files.set(
              `${task} #${name.slice(0, -5)}`,
              await readFile(path.join(job, "trials", task, name), "utf8"),
            );
      return files;
    };
    const before = await recorded();
    expect(before.has("b-held #1")).toBe(false);

    await writeFile(go, "");
    const second = startWorker(redis.url, tmp);
    const resumed = await spawnBin(
      ["eval", "resume", jobId as string, "--queue", redis.url, "--json"],
      { env },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ passed: 4, total: 4, trials: 2 });
    const after = await recorded();
    expect([...after.keys()].sort()).toEqual([
      "a-quick #1",
      "a-quick #2",
      "b-held #1",
      "b-held #2",
    ]);
    for (const [key, text] of before) expect(after.get(key), key).toBe(text);
    const startsOf = (worker: Worker) =>
      worker
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("开始 "))
        .map((line) => line.slice(3));
    // The killed worker's trial had no result and ran again; nothing else ran twice.
    expect(startsOf(first)).toEqual(["a-quick #1", "a-quick #2", "b-held #1"]);
    expect(startsOf(second).sort()).toEqual(["b-held #1", "b-held #2"]);
    const runIds = [...after.values()].map((text) => JSON.parse(text).result.runId);
    expect(new Set(runIds).size).toBe(4);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(130);
  });

  it("says once that Redis cannot be reached, and exits 1", async () => {
    const port = await freePort();
    const ran = await spawnBin(["eval", suite, "--queue", `redis://127.0.0.1:${port}`], {
      env: { PATH: process.env.PATH },
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(`连不上 Redis：127.0.0.1:${port}`);
  });
});
