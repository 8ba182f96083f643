/**
 * What the eval harness costs (lessons 33–35): the overhead per task of a no-op task, and the
 * wall time of the bundled suite at concurrency 1, 2 and 4.
 *
 * - "harness only": a no-op agent (a Node script that prints a completed RunResult): the
 *   temporary workspace, the fixture copy, one child process, the four graders (a `true`
 *   test command), the removal. What the harness adds to any agent.
 * - "no-op coding-agent run": the real CLI, started from its TypeScript sources as a child
 *   process, running its default script (echo, finish) with `--finish-gate none`: the
 *   harness plus a real CLI start, which is what a task costs beyond its agent's work.
 * - the bundled suite (examples/basic: four tasks, fake-model scripts, `node --test`), and,
 *   when `redis-server` is on PATH, the same suite over a queue with two workers
 *   (`coding-agent eval worker --concurrency 1` each) against the local run at concurrency 2.
 *
 *   pnpm --filter @coding-agent/eval bench            # one round (a quick check that it runs)
 *   pnpm --filter @coding-agent/eval bench -- --rounds 5
 *
 * Numbers need a quiet machine; on a loaded one they only show that the bench runs.
 */
import { spawn, spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type AgentRunner,
  type EvalTask,
  loadSuite,
  runTask,
  runTasks,
  runTasksOnQueue,
} from "../src/index.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "1" } } });
const ROUNDS = Math.max(1, Number(values.rounds));
const NOOP_TASKS = 4;

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository's development bin of `coding-agent` (the CLI depends on this package, not the reverse). */
const cliRunner: AgentRunner = {
  command: process.execPath,
  args: [path.resolve(here, "../../cli/bin/coding-agent-dev.js")],
};

const noopTask: EvalTask = {
  id: "noop",
  goal: "什么也不做",
  testCommand: "true",
  allowPaths: [],
  forbiddenPaths: [],
  args: ["--finish-gate", "none"],
  expectStatus: "completed",
  files: [
    { path: "README.md", base64: Buffer.from("noop\n").toString("base64"), executable: false },
  ],
};

async function noopAgentRunner(): Promise<AgentRunner> {
  const script = path.join(here, ".noop-agent.mjs");
  await writeFile(
    script,
    'process.stdout.write(JSON.stringify({ status: "completed", code: "finished" }));\n',
  );
  return { command: process.execPath, args: [script] };
}

const signal = new AbortController().signal;

/** Milliseconds per task, tasks one after another. */
async function perTask(runner: AgentRunner): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < NOOP_TASKS; index += 1) {
    const result = await runTask(noopTask, { runner, signal });
    if (!result.passed) throw new Error(`no-op task failed: ${JSON.stringify(result)}`);
  }
  return (performance.now() - started) / NOOP_TASKS;
}

const median = (samples: number[]) =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0;

const suite = await loadSuite(path.resolve(here, "../examples/basic"), () => undefined);
if (!suite.ok) throw new Error(suite.message);
const noopAgent = await noopAgentRunner();

const rows: [string, number][] = [];
const harnessOnly: number[] = [];
const noopCli: number[] = [];
const suiteAt = new Map<number, number[]>();
for (let round = 0; round < ROUNDS; round += 1) {
  harnessOnly.push(await perTask(noopAgent));
  noopCli.push(await perTask(cliRunner));
  for (const concurrency of [1, 2, 4]) {
    const started = performance.now();
    const outcome = await runTasks(suite.suite.tasks, { runner: cliRunner, concurrency, signal });
    if (outcome.kind !== "done" || outcome.results.filter((result) => result.passed).length !== 2)
      throw new Error(`the bundled suite did not grade as expected: ${JSON.stringify(outcome)}`);
    suiteAt.set(concurrency, [...(suiteAt.get(concurrency) ?? []), performance.now() - started]);
  }
}
rows.push(["harness only, per no-op task (ms)", median(harnessOnly)]);
rows.push(["no-op coding-agent run, per task (ms)", median(noopCli)]);
for (const [concurrency, samples] of suiteAt)
  rows.push([
    `bundled suite (${suite.suite.tasks.length} tasks), concurrency ${concurrency} (ms)`,
    median(samples),
  ]);

/** The bundled suite through Redis with two one-task workers; undefined without redis-server. */
async function queuedWallTimes(): Promise<number[] | undefined> {
  if (spawnSync("redis-server", ["--version"]).status !== 0) return undefined;
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  const redis = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  await new Promise<void>((resolve) =>
    redis.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) resolve();
    }),
  );
  const url = `redis://127.0.0.1:${port}`;
  const workers = [0, 1].map(() =>
    spawn(
      cliRunner.command,
      [...cliRunner.args, "eval", "worker", "--queue", url, "--concurrency", "1"],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    ),
  );
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) =>
          worker.stderr.on("data", (chunk: Buffer) => {
            if (chunk.toString().includes("已连接")) resolve();
          }),
        ),
    ),
  );
  const samples: number[] = [];
  if (!suite.ok) return undefined;
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    const outcome = await runTasksOnQueue(suite.suite.tasks, {
      address: { host: "127.0.0.1", port },
      signal,
    });
    if (outcome.kind !== "done" || outcome.results.filter((result) => result.passed).length !== 2)
      throw new Error(`the queued suite did not grade as expected: ${JSON.stringify(outcome)}`);
    samples.push(performance.now() - started);
  }
  for (const worker of workers) worker.kill("SIGINT");
  await Promise.all(
    workers.map((worker) => new Promise((resolve) => worker.once("exit", resolve))),
  );
  redis.kill("SIGKILL");
  return samples;
}

const queued = await queuedWallTimes();
if (queued === undefined)
  rows.push(["queued suite, 2 workers (no redis-server on PATH)", Number.NaN]);
else rows.push([`queued suite, 2 workers × concurrency 1 (ms)`, median(queued)]);

process.stdout.write(`rounds: ${ROUNDS} (median)\n`);
for (const [label, ms] of rows)
  process.stdout.write(`${label.padEnd(52)}${ms.toFixed(0).padStart(8)}\n`);
