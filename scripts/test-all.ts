/**
 * `pnpm test`: lint (the working tree, and the starters as committed), typecheck, every
 * package's tests, every lab verified, every smoke.
 * Counts what ran (each vitest test, each verify check, each smoke, lint and each
 * typecheck task) and ends with exactly `N passed, N failed`; exits 1 on any failure.
 * Turbo caches typecheck, tests and smokes; test tasks also write vitest's JSON results to
 * a declared output, so a cache hit restores the counts.
 */
import { spawn } from "node:child_process";
import { readdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import {
  EXIT_CODES,
  formatVerdict,
  lintRepository,
  listLabs,
  verifyLessons,
} from "@bootcamp/lab-kit";

const repoRoot = path.resolve(import.meta.dirname, "..");
const RESULTS_FILE = ".lab-kit/vitest-results.json";
const VITEST_ARGS = ["--reporter=default", "--reporter=json", `--outputFile.json=${RESULTS_FILE}`];

interface Tally {
  passed: number;
  failed: number;
}

interface TurboTask {
  readonly taskId: string;
  readonly directory: string;
  readonly cache: { readonly status: string };
  readonly execution?: { readonly exitCode?: number | null };
}

/** Runs a command in the repository, its output streamed; resolves with the exit code. */
function run(command: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: "inherit" });
    child.on("exit", (code) => resolve(code ?? 1));
    child.on("error", () => resolve(1));
  });
}

function heading(text: string): void {
  process.stdout.write(`\n── ${text} ──\n`);
}

/** Runs turbo with a run summary and returns the tasks it reports (ran or restored). */
async function turbo(
  args: readonly string[],
  passThrough: readonly string[] = [],
  outputLogs: "errors-only" | "full" = "errors-only",
): Promise<{ code: number; tasks: TurboTask[] }> {
  const before = Date.now();
  const code = await run("pnpm", [
    "exec",
    "turbo",
    "run",
    ...args,
    "--continue",
    "--summarize",
    `--output-logs=${outputLogs}`,
    ...(passThrough.length === 0 ? [] : ["--", ...passThrough]),
  ]);
  const runsDir = path.join(repoRoot, ".turbo", "runs");
  let tasks: TurboTask[] = [];
  for (const name of await readdir(runsDir).catch(() => [] as string[])) {
    const file = path.join(runsDir, name);
    if ((await stat(file)).mtimeMs < before) continue;
    const summary = JSON.parse(await readFile(file, "utf8")) as { tasks: TurboTask[] };
    tasks = summary.tasks;
    await rm(file, { force: true });
  }
  return { code, tasks };
}

/** One count per task: its exit code, or failed when turbo never reported it. */
function countTasks(tally: Tally, code: number, tasks: readonly TurboTask[]): void {
  if (tasks.length === 0 && code !== 0) tally.failed++;
  for (const task of tasks) {
    if (task.execution?.exitCode === 0) tally.passed++;
    else tally.failed++;
  }
}

/** Individual vitest tests from each test task's JSON results (restored on a cache hit). */
async function countTests(tally: Tally, tasks: readonly TurboTask[]): Promise<void> {
  for (const task of tasks) {
    const file = path.join(repoRoot, task.directory, RESULTS_FILE);
    try {
      const results = JSON.parse(await readFile(file, "utf8")) as {
        numPassedTests: number;
        numFailedTests: number;
      };
      tally.passed += results.numPassedTests;
      tally.failed += results.numFailedTests;
      if (task.execution?.exitCode !== 0 && results.numFailedTests === 0) tally.failed++;
    } catch {
      // No results: the task failed before vitest could report (or is not vitest).
      if (task.execution?.exitCode === 0) tally.passed++;
      else tally.failed++;
    }
  }
}

async function main(): Promise<void> {
  const steps: { readonly name: string; readonly tally: Tally }[] = [];
  const step = (name: string): Tally => {
    heading(name);
    const tally: Tally = { passed: 0, failed: 0 };
    steps.push({ name, tally });
    return tally;
  };

  // The learners' starters are linted as committed, never as edited: a correct answer
  // that Biome would lay out differently must not fail the learner's `pnpm test`.
  const lint = step("lint (biome)");
  for (const part of await lintRepository(repoRoot)) {
    if (part.ok) lint.passed++;
    else {
      lint.failed++;
      process.stdout.write(`biome found problems in: ${part.scope}\n`);
    }
  }

  const typecheckTally = step("typecheck");
  const typecheck = await turbo(["typecheck"]);
  countTasks(typecheckTally, typecheck.code, typecheck.tasks);

  const testTally = step("package tests");
  const tests = await turbo(
    ["test", "--filter=./packages/*", "--filter=./checkpoints/*"],
    VITEST_ARGS,
  );
  const testTasks = tests.tasks.filter((task) => task.taskId.endsWith("#test"));
  if (testTasks.length === 0 && tests.code !== 0) testTally.failed++;
  await countTests(testTally, testTasks);

  const verifyTally = step("verify:lesson --all");
  const labs = await listLabs(repoRoot);
  const verdicts = await verifyLessons(repoRoot, labs);
  process.stdout.write(`${verdicts.map(formatVerdict).join("\n\n")}\n`);
  for (const verdict of verdicts) {
    for (const check of verdict.checks) {
      if (check.ok) verifyTally.passed++;
      else verifyTally.failed++;
    }
  }

  const smokeTally = step("smoke");
  // Full logs: each checkpoint's verdict and evidence lines are the point of a smoke.
  const smoke = await turbo(["smoke"], [], "full");
  countTasks(
    smokeTally,
    smoke.code,
    smoke.tasks.filter((task) => task.taskId.endsWith("#smoke")),
  );

  heading("summary");
  for (const { name, tally } of steps) {
    process.stdout.write(`  ${name.padEnd(22)} ${tally.passed} passed, ${tally.failed} failed\n`);
  }
  const passed = steps.reduce((sum, entry) => sum + entry.tally.passed, 0);
  const failed = steps.reduce((sum, entry) => sum + entry.tally.failed, 0);
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  process.exitCode = failed === 0 ? EXIT_CODES.ok : EXIT_CODES.failed;
}

await main();
