// `pnpm bench:lessons [--runs N]`: wall time of `pnpm lessons` as a learner runs it (pnpm,
// Node, one vitest process for every starter), warm: one untimed run first, then the
// median of N timed runs. Target: at most 3 s.
import { EXIT_CODES, processOutput } from "@bootcamp/lab-kit";
import { parseArgsOrExplain } from "@coding-agent/cli/parse-args";
import { median, seconds, timeCommand } from "./bench-timing.ts";

const TARGET_MS = 3_000;

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

const runLessons = () => timeCommand("pnpm", ["lessons"]);

const warmUp = await runLessons();
const timings: number[] = [];
let last = warmUp;
for (let index = 0; index < runs; index++) {
  last = await runLessons();
  timings.push(last.ms);
}
const middle = median(timings);
process.stdout.write(`${last.output.trimEnd()}\n\n`);
process.stdout.write(
  `${[
    `pnpm lessons（预热 1 次后计时 ${runs} 次，退出码 ${last.code}）`,
    `  中位数 ${seconds(middle)} · 最快 ${seconds(Math.min(...timings))} · 最慢 ${seconds(Math.max(...timings))} · 预热 ${seconds(warmUp.ms)}`,
    `  目标 ≤ ${seconds(TARGET_MS)}：${middle <= TARGET_MS ? "达标" : "未达标"}`,
  ].join("\n")}\n`,
);
process.exitCode = middle <= TARGET_MS ? EXIT_CODES.ok : EXIT_CODES.failed;
