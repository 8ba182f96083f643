// `pnpm bench:lessons [--runs N]`: wall time of `pnpm lessons` as a learner runs it (pnpm,
// Node, one vitest process for every starter), warm: one untimed run first, then the
// median of N timed runs (target: at most 3 s); then `pnpm lesson hint 05` the same way,
// as a learner asks for the next hint of an unchanged lab (target: at most 0.6 s).
import { EXIT_CODES, processOutput } from "@bootcamp/lab-kit";
import { parseArgsOrExplain } from "@coding-agent/cli/parse-args";
import { median, seconds, timeCommand } from "./bench-timing.ts";

const TARGET_MS = 3_000;
const HINT_TARGET_MS = 600;

const parsed = parseArgsOrExplain({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: { runs: { type: "string", default: "5" } },
  strict: true,
});
const runs = parsed.ok ? Number(parsed.parsed.values.runs) : Number.NaN;
if (!Number.isInteger(runs) || runs < 1) {
  const problem = parsed.ok ? "" : `${parsed.message}。`;
  processOutput.err(`${problem}用法：pnpm bench:lessons [--runs N]（N 为正整数）\n`);
  process.exit(EXIT_CODES.usage);
}

/** Runs `args` with pnpm once untimed, then `runs` times; prints the summary, returns the median. */
async function measure(args: readonly string[], target: number, showOutput: boolean) {
  const warmUp = await timeCommand("pnpm", args);
  const timings: number[] = [];
  let last = warmUp;
  for (let index = 0; index < runs; index++) {
    last = await timeCommand("pnpm", args);
    timings.push(last.ms);
  }
  const middle = median(timings);
  if (showOutput) process.stdout.write(`${last.output.trimEnd()}\n\n`);
  process.stdout.write(
    `${[
      `pnpm ${args.join(" ")}（预热 1 次后计时 ${runs} 次，退出码 ${last.code}）`,
      `  中位数 ${seconds(middle)} · 最快 ${seconds(Math.min(...timings))} · 最慢 ${seconds(Math.max(...timings))} · 预热 ${seconds(warmUp.ms)}`,
      `  目标 ≤ ${seconds(target)}：${middle <= target ? "达标" : "未达标"}`,
    ].join("\n")}\n`,
  );
  return middle <= target;
}

const lessonsMet = await measure(["lessons"], TARGET_MS, true);
const hintMet = await measure(["lesson", "hint", "05"], HINT_TARGET_MS, false);
process.exitCode = lessonsMet && hintMet ? EXIT_CODES.ok : EXIT_CODES.failed;
