// `pnpm bench:lessons [--runs N]`: wall time of `pnpm lessons` as a learner runs it (pnpm,
// tsx, one vitest process for every starter), warm: one untimed run first, then the
// median of N timed runs. Target (design.md §5): at most 3 s.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { EXIT_CODES, processOutput } from "@bootcamp/lab-kit";
import { parseArgsOrExplain } from "@coding-agent/cli/parse-args";

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

interface Run {
  readonly ms: number;
  readonly code: number | null;
  readonly output: string;
}

function runLessons(): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("pnpm", ["lessons"], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ ms: performance.now() - started, code, output }));
  });
}

function median(numbers: readonly number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const warmUp = await runLessons();
const timings: number[] = [];
let last = warmUp;
for (let index = 0; index < runs; index++) {
  last = await runLessons();
  timings.push(last.ms);
}
const middle = median(timings);
const format = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
process.stdout.write(`${last.output.trimEnd()}\n\n`);
process.stdout.write(
  `${[
    `pnpm lessons（预热 1 次后计时 ${runs} 次，退出码 ${last.code}）`,
    `  中位数 ${format(middle)} · 最快 ${format(Math.min(...timings))} · 最慢 ${format(Math.max(...timings))} · 预热 ${format(warmUp.ms)}`,
    `  目标 ≤ ${format(TARGET_MS)}：${middle <= TARGET_MS ? "达标" : "未达标"}`,
  ].join("\n")}\n`,
);
process.exitCode = middle <= TARGET_MS ? EXIT_CODES.ok : EXIT_CODES.failed;
