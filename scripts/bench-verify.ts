/**
 * `pnpm bench:verify`: wall time of `verify:lesson 05 --no-cache` against a bare `vitest run`
 * of the same lab's solution tests (the lab's own `test` script), measured alternately in the
 * same run; prints the medians and their ratio (target: at most 3.5x), and the same verify
 * answered from the verdict cache. With `--all`, also `verify:lesson --all` per lab, without
 * and with the cache (two whole runs of every lab: many minutes).
 * Usage: `pnpm bench:verify [runs] [lesson] [--all]`.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { EXIT_CODES, listLabs, normalizeLessonId } from "@bootcamp/lab-kit";
import { median } from "./bench-timing.ts";

const repoRoot = path.resolve(import.meta.dirname, "..");
const given = process.argv.slice(2).filter((arg) => arg !== "--");
const withAll = given.includes("--all");
const args = given.filter((arg) => arg !== "--all");
const runs = Number(args[0] ?? 5);
const lessonId = normalizeLessonId(args[1] ?? "05") ?? "05";
const TARGET_RATIO = 3.5;
/** As the root scripts run a script (package.json): Node itself, after the Node check. */
const RUN_SCRIPT = [
  "--import",
  "@bootcamp/lab-kit/require-node",
  "--conditions=@coding-agent/source",
];

/** Wall time of one command, in ms; fails loudly if the command fails unexpectedly. */
function time(command: string, commandArgs: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, commandArgs, { cwd, stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${command} ${commandArgs.join(" ")} exited ${code}`));
    });
  });
}

/** Wall time of `verify:lesson --all`, whatever its verdict (a lab may be mid-edit). */
function timeAll(script: string, extra: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [...RUN_SCRIPT, script, "--all", "--seed", "1", ...extra],
      {
        cwd: repoRoot,
        stdio: "ignore",
      },
    );
    child.on("error", reject);
    child.on("exit", () => resolve(performance.now() - started));
  });
}

async function main(): Promise<void> {
  const lab = (await listLabs(repoRoot)).find((entry) => entry.id === lessonId);
  if (lab === undefined || !Number.isInteger(runs) || runs < 1) {
    process.stderr.write("用法：pnpm bench:verify [次数] [课号] [--all]\n");
    process.exit(EXIT_CODES.usage);
  }
  const node = process.execPath;
  const solution = path.join(lab.dir, "solution");
  // The lab's own `test` script: vitest run with the one lab config.
  const vitest = path.join(solution, "node_modules", ".bin", "lab-test");
  const script = path.join("scripts", "verify-lesson.ts");
  const verify = () =>
    time(node, [...RUN_SCRIPT, script, lab.id, "--seed", "1", "--no-cache"], repoRoot);
  const cached = () => time(node, [...RUN_SCRIPT, script, lab.id, "--seed", "1"], repoRoot);
  const bare = () => time(vitest, [], solution);
  // One warm-up of each so both read from a warm file cache.
  await verify();
  await bare();
  const verifyTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let run = 0; run < runs; run++) {
    verifyTimes.push(await verify());
    bareTimes.push(await bare());
  }
  // The verdict cache: one run stores the verdict, the runs after it are answered from it.
  await cached();
  const cachedTimes: number[] = [];
  for (let run = 0; run < runs; run++) cachedTimes.push(await cached());
  const verifyMs = median(verifyTimes);
  const bareMs = median(bareTimes);
  const ratio = verifyMs / bareMs;
  const ms = (value: number) => `${Math.round(value)} ms`;
  process.stdout.write(
    [
      `verify:lesson ${lab.id} --no-cache：中位数 ${ms(verifyMs)}（${verifyTimes.map(ms).join(", ")}）`,
      `vitest run（${lab.id} solution）：中位数 ${ms(bareMs)}（${bareTimes.map(ms).join(", ")}）`,
      `比值 ${ratio.toFixed(2)}x（目标 ≤ ${TARGET_RATIO}x）${ratio <= TARGET_RATIO ? "" : "：超出目标"}`,
      `verify:lesson ${lab.id}（结论来自缓存）：中位数 ${ms(median(cachedTimes))}（${cachedTimes.map(ms).join(", ")}）`,
      "",
    ].join("\n"),
  );
  if (!withAll) return;
  const labCount = (await listLabs(repoRoot)).length;
  const allCold = await timeAll(script, ["--no-cache"]);
  // The first cached run verifies and stores every verdict (--no-cache stores none); the
  // second is the one answered from the cache.
  await timeAll(script, []);
  const allCached = await timeAll(script, []);
  const perLab = (value: number) => `${ms(value)}，每课 ${ms(value / labCount)}`;
  process.stdout.write(
    [
      `verify:lesson --all --no-cache（${labCount} 课）：${perLab(allCold)}`,
      `verify:lesson --all（结论来自缓存，${labCount} 课）：${perLab(allCached)}`,
      "",
    ].join("\n"),
  );
}

await main();
