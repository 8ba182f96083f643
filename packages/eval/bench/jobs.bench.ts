/**
 * What a job's resume and regrade cost (issue: evaluation people can compare), on the path
 * users run: `coding-agent eval` as the CLI runs it (its eval command, in this process), each
 * trial a real `coding-agent run` child process on the Fake Model (read a file, run the
 * tests, finish through the finish gate), graded by `node --test`.
 *
 * 1. A 20-task job at concurrency 1, interrupted (Ctrl-C) as task 10's result is recorded.
 * 2. `coding-agent eval resume <job>`: target, exactly 10 child runs (one per trial without a
 *    result), and with them 10 runs' worth of model calls.
 * 3. `coding-agent eval regrade <job>` on the 20 kept workspaces: targets, 0 model calls (no
 *    child run at all), and less wall time than one child run per task (20 × the resume's
 *    time per run, both at concurrency 1).
 *
 *   pnpm --filter @coding-agent/eval bench:jobs
 *
 * Child runs and model calls are counted from `$CODING_AGENT_HOME/runs/` (a run folder per
 * child run, a `model_reply` line in its state log per model call). A missed count exits 1;
 * the time target is reported with the load it was measured at, as a benchmark, not a gate.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** `runEvalCli` of the CLI (packages/cli/src/eval-command.ts): the eval command as users start it. */
type RunEvalCli = (
  argv: readonly string[],
  io: { readonly stdout: (text: string) => void; readonly stderr: (text: string) => void },
  signal: AbortSignal,
  env: Readonly<Record<string, string | undefined>>,
) => Promise<number>;

const TASKS = 20;
const INTERRUPT_AT = 10;
// The CLI depends on this package, not the reverse: its module is loaded by path at run time.
const cliEvalModule = new URL("../../cli/src/eval-command.ts", import.meta.url).href;
const { runEvalCli } = (await import(cliEvalModule)) as { runEvalCli: RunEvalCli };

const base = await mkdtemp(path.join(os.tmpdir(), "coding-agent-jobs-bench-"));
const home = path.join(base, "home");
const suite = path.join(base, "suite");
const env = { ...process.env, CODING_AGENT_HOME: home };

/** Twenty tasks like a small real one: a fixture with a passing test, a script that checks it. */
async function writeSuite(): Promise<void> {
  for (let index = 1; index <= TASKS; index += 1) {
    const dir = path.join(suite, `task-${String(index).padStart(2, "0")}`);
    await mkdir(path.join(dir, "repo", "test"), { recursive: true });
    await writeFile(path.join(dir, "repo", "sum.mjs"), "export const sum = (a, b) => a + b;\n");
    await writeFile(
      path.join(dir, "repo", "test", "sum.test.mjs"),
      'import assert from "node:assert/strict";\nimport test from "node:test";\nimport { sum } from "../sum.mjs";\ntest("sum", () => assert.equal(sum(1, 2), 3));\n',
    );
    await writeFile(
      path.join(dir, "task.json"),
      JSON.stringify({
        id: path.basename(dir),
        goal: "确认 sum 的测试通过",
        repo: "repo",
        testCommand: "node --test",
        script: [
          { action: { type: "tool_call", tool: "read_file", input: { path: "sum.mjs" } } },
          { action: { type: "tool_call", tool: "run_tests", input: {} } },
          { action: { type: "finish", summary: "测试通过" } },
        ],
      }),
    );
  }
}

/** Child runs so far (one run folder each) and the model calls they made (`model_reply` lines). */
async function runsAndModelCalls(): Promise<{ runs: number; modelCalls: number }> {
  const runs = await readdir(path.join(home, "runs")).catch(() => [] as string[]);
  let modelCalls = 0;
  for (const run of runs) {
    const log = await readFile(path.join(home, "runs", run, "state.jsonl"), "utf8").catch(() => "");
    modelCalls += log.split("\n").filter((line) => line.includes('"type":"model_reply"')).length;
  }
  return { runs: runs.length, modelCalls };
}

/** `coding-agent eval <argv>` in this process; `interruptAt` aborts once that many progress lines printed. */
async function evalCli(argv: readonly string[], interruptAt?: number) {
  const controller = new AbortController();
  let stderr = "";
  let progress = 0;
  const started = performance.now();
  const code = await runEvalCli(
    argv,
    {
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
        if (/^\[\d+\/\d+\] /.test(text)) progress += 1;
        // Within the progress callback: the pool starts nothing after this (a Ctrl-C).
        if (interruptAt !== undefined && progress === interruptAt) controller.abort();
      },
    },
    controller.signal,
    env,
  );
  return { code, stderr, ms: performance.now() - started };
}

const fail = (message: string): never => {
  throw new Error(`${message}（临时目录保留在 ${base}）`);
};

await writeSuite();
const loadBefore = os.loadavg();
const first = await evalCli([suite, "--keep-workspaces", "--concurrency", "1"], INTERRUPT_AT);
if (first.code !== 130) fail(`the interrupted job exited ${first.code}: ${first.stderr}`);
const [jobId] = await readdir(path.join(home, "evals"));
if (jobId === undefined) fail("no job folder");
const job = path.join(home, "evals", jobId as string);
const recorded = (await readdir(path.join(job, "trials"))).length;

const beforeResume = await runsAndModelCalls();
const resume = await evalCli(["resume", jobId as string, "--concurrency", "1"]);
if (resume.code !== 0) fail(`resume exited ${resume.code}: ${resume.stderr}`);
const afterResume = await runsAndModelCalls();
const resumeRuns = afterResume.runs - beforeResume.runs;
const perRunMs = resume.ms / Math.max(1, resumeRuns);

const regrade = await evalCli(["regrade", jobId as string, "--concurrency", "1"]);
if (regrade.code !== 0) fail(`regrade exited ${regrade.code}: ${regrade.stderr}`);
const afterRegrade = await runsAndModelCalls();
const regradeRuns = afterRegrade.runs - afterResume.runs;
const regradeModelCalls = afterRegrade.modelCalls - afterResume.modelCalls;
const budgetMs = TASKS * perRunMs;
const loadAfter = os.loadavg();

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
const targets = {
  resumeRuns: resumeRuns === TASKS - INTERRUPT_AT,
  regradeModelCalls: regradeModelCalls === 0 && regradeRuns === 0,
  regradeTime: regrade.ms < budgetMs,
};
const load = (avg: number[]) => avg.map((value) => value.toFixed(2)).join(" ");
const lines = [
  `load average (1/5/15 min): ${load(loadBefore)} before, ${load(loadAfter)} after; ${os.availableParallelism()} cores`,
  `job: ${TASKS} tasks × 1 trial, Fake Model child runs, concurrency 1, --keep-workspaces`,
  `interrupted at task ${INTERRUPT_AT}: ${recorded} tasks recorded, ${(first.ms / 1000).toFixed(1)} s`,
  `resume: ${resumeRuns} child runs, ${afterResume.modelCalls - beforeResume.modelCalls} model calls, ${(resume.ms / 1000).toFixed(1)} s (${(perRunMs / 1000).toFixed(2)} s per child run)`,
  `regrade: ${regradeRuns} child runs, ${regradeModelCalls} model calls, ${(regrade.ms / 1000).toFixed(1)} s (${(regrade.ms / TASKS / 1000).toFixed(2)} s per task)`,
  "",
  `${verdict(targets.resumeRuns)}  resume of a job interrupted at task ${INTERRUPT_AT} makes exactly ${TASKS - INTERRUPT_AT} child runs (made ${resumeRuns})`,
  `${verdict(targets.regradeModelCalls)}  regrade of ${TASKS} kept workspaces makes 0 model calls (made ${regradeModelCalls}, in ${regradeRuns} child runs)`,
  `${verdict(targets.regradeTime)}  regrade takes less than one child run per task: ${(regrade.ms / 1000).toFixed(1)} s < ${TASKS} × ${(perRunMs / 1000).toFixed(2)} s = ${(budgetMs / 1000).toFixed(1)} s`,
];
process.stdout.write(`${lines.join("\n")}\n`);
await rm(base, { recursive: true, force: true });
// The counts are the contract; the time is a measurement, reported with its load.
if (!targets.resumeRuns || !targets.regradeModelCalls) process.exitCode = 1;
