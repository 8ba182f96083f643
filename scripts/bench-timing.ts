// What the bench scripts share: running a command with its wall time, and the median.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

/** One finished command: wall time, exit code and everything it printed. */
export interface TimedRun {
  readonly ms: number;
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs `command` in `cwd` (output captured, colors off, `env` over this process's) and
 * measures its wall time.
 */
export function timeCommand(
  command: string,
  args: readonly string[],
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = {},
): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, [...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ...env },
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

/** The median of a non-empty list. */
export function median(numbers: readonly number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Seconds with two decimals: `2.41 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
