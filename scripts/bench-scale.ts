/**
 * `pnpm bench:scale [--lessons N] [--runs N] [--ref REV]`: how the learner tools scale with
 * the course. Clones this repository (REV, default HEAD) into a temp folder, scaffolds lessons
 * with the clone's own scaffold API (what `pnpm new:lesson` calls) until there are N (default
 * 40), commits them as a course would, installs, then reports `pnpm lessons` (warm: one
 * untimed run, median of the timed ones; target at most 3 s) and one
 * `pnpm verify:lesson --all`. The temp folder is removed in any case. Run it with
 * `--ref <older commit>` to measure before a change.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { EXIT_CODES, processOutput } from "@bootcamp/lab-kit";
import { parseArgsOrExplain } from "@coding-agent/cli/parse-args";
import { median, seconds, type TimedRun, timeCommand } from "./bench-timing.ts";

const TARGET_MS = 3_000;
const USAGE = "用法：pnpm bench:scale [--lessons N] [--runs N] [--ref 提交]";
const repoRoot = path.resolve(import.meta.dirname, "..");
const execFileAsync = promisify(execFile);

const parsed = parseArgsOrExplain({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    lessons: { type: "string", default: "40" },
    runs: { type: "string", default: "5" },
    ref: { type: "string", default: "HEAD" },
  },
  strict: true,
});
if (!parsed.ok) {
  processOutput.err(`${parsed.message}。\n${USAGE}\n`);
  process.exit(EXIT_CODES.usage);
}
const lessons = Number(parsed.parsed.values.lessons);
const runs = Number(parsed.parsed.values.runs);
const ref = parsed.parsed.values.ref;
if (
  !Number.isInteger(lessons) ||
  lessons < 1 ||
  lessons > 99 ||
  !Number.isInteger(runs) ||
  runs < 1
) {
  processOutput.err(`--lessons 应在 1 到 99 之间，--runs 应为正整数。\n${USAGE}\n`);
  process.exit(EXIT_CODES.usage);
}

/** Runs a setup step; a failing step ends the bench with its output. */
async function step(what: string, command: string, args: readonly string[], cwd: string) {
  const run = await timeCommand(command, args, cwd);
  if (run.code !== 0) {
    throw new Error(`${what} 失败（退出码 ${run.code}）：\n${run.output.trimEnd()}`);
  }
  processOutput.err(`  ${what}：${seconds(run.ms)}\n`);
  return run;
}

const root = await mkdtemp(path.join(os.tmpdir(), "bench-scale-"));
const clone = path.join(root, "repo");
try {
  const commit = (
    await execFileAsync("git", ["rev-parse", "--short", ref], { cwd: repoRoot })
  ).stdout.trim();
  processOutput.err(`准备：在临时目录克隆 ${commit}，补足到 ${lessons} 课\n`);
  await step("git clone", "git", ["clone", "--quiet", "--no-checkout", repoRoot, clone], root);
  await step("git checkout", "git", ["checkout", "--quiet", commit], clone);
  await step("pnpm install", "pnpm", ["install", "--prefer-offline"], clone);
  const existing = new Set(
    (await readdir(path.join(clone, "labs"))).map((name) => Number(name.slice(0, 2))),
  );
  const missing: number[] = [];
  for (let id = 1; missing.length + existing.size < lessons && id <= 99; id++) {
    if (!existing.has(id)) missing.push(id);
  }
  // The clone's own scaffold API (what `pnpm new:lesson` calls), in one Node process rather
  // than a pnpm and a Node start per lesson. The script stays untracked in the clone.
  const requests = missing.map((id) => ({
    number: String(id),
    slug: `bench-lesson-${id}`,
    title: `基准课 ${id}`,
  }));
  await writeFile(
    path.join(clone, "bench-scaffold.ts"),
    [
      'import { scaffoldLesson } from "@bootcamp/lab-kit";',
      `for (const request of ${JSON.stringify(requests)}) {`,
      "  const result = await scaffoldLesson(process.cwd(), request);",
      "  if (!result.ok) throw new Error(result.problem);",
      "}",
      "",
    ].join("\n"),
  );
  await step(
    `scaffold ×${missing.length}`,
    process.execPath,
    ["--conditions=@coding-agent/source", "bench-scaffold.ts"],
    clone,
  );
  await step("git add", "git", ["add", "labs"], clone);
  await step(
    "git commit",
    "git",
    [
      "-c",
      "user.name=bench",
      "-c",
      "user.email=bench@example.invalid",
      "-c",
      "commit.gpgsign=false",
      "commit",
      "--quiet",
      "-m",
      "bench: scaffolded lessons",
    ],
    clone,
  );
  await step("pnpm install", "pnpm", ["install", "--prefer-offline"], clone);
  const labCount = (await readdir(path.join(clone, "labs"))).length;

  const lessonsRuns: TimedRun[] = [];
  const warmUp = await timeCommand("pnpm", ["--silent", "lessons"], clone);
  for (let index = 0; index < runs; index++) {
    lessonsRuns.push(await timeCommand("pnpm", ["--silent", "lessons"], clone));
  }
  const lessonsMs = median(lessonsRuns.map((run) => run.ms));
  // One more run, untimed, through a `git` that logs its subcommand: how many git processes
  // one `pnpm lessons` starts (the part of its cost that grows with every lab).
  const gitLog = path.join(root, "git-calls.log");
  const gitBin = path.join(root, "bin");
  const realGit = (await execFileAsync("sh", ["-c", "command -v git"])).stdout.trim();
  await mkdir(gitBin);
  await writeFile(gitLog, "");
  await writeFile(
    path.join(gitBin, "git"),
    `#!/bin/sh\necho "$1" >> "${gitLog}"\nexec "${realGit}" "$@"\n`,
    { mode: 0o755 },
  );
  await timeCommand("pnpm", ["--silent", "lessons"], clone, {
    PATH: `${gitBin}${path.delimiter}${process.env.PATH ?? ""}`,
  });
  const gitCalls = new Map<string, number>();
  for (const call of (await readFile(gitLog, "utf8")).split("\n").filter(Boolean)) {
    gitCalls.set(call, (gitCalls.get(call) ?? 0) + 1);
  }
  const gitTotal = [...gitCalls.values()].reduce((sum, count) => sum + count, 0);
  const gitParts = [...gitCalls].map(([call, count]) => `${call} ${count}`).join("、");
  const verify = await timeCommand("pnpm", ["--silent", "verify:lesson", "--all"], clone);
  // The tool's own last line, not pnpm's ELIFECYCLE note after a non-zero exit.
  const summary =
    verify.output
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.includes("ELIFECYCLE"))
      .at(-1) ?? "";
  const lessonsCodes = [...new Set(lessonsRuns.map((run) => run.code))].join("、");
  const times = lessonsRuns.map((run) => seconds(run.ms)).join("、");
  processOutput.out(
    `${[
      `bench:scale：${commit}，${labCount} 课`,
      `  pnpm lessons：中位数 ${seconds(lessonsMs)}（${times}；预热 ${seconds(warmUp.ms)}；退出码 ${lessonsCodes}）`,
      `    目标 ≤ ${seconds(TARGET_MS)}：${lessonsMs <= TARGET_MS ? "达标" : "未达标"}`,
      `    一次运行启动的 git 进程：${gitTotal}（${gitParts}）`,
      `  pnpm verify:lesson --all：${seconds(verify.ms)}（退出码 ${verify.code}；${summary}）`,
    ].join("\n")}\n`,
  );
  process.exitCode = lessonsMs <= TARGET_MS ? EXIT_CODES.ok : EXIT_CODES.failed;
} finally {
  await rm(root, { recursive: true, force: true });
}
