/**
 * What starting `coding-agent` costs, on the path a user who installed the package runs:
 * the built CLI (`bin/coding-agent.js` → `dist/`), plain Node, no TypeScript at start-up.
 * Each command is timed as a whole process, paired run by run with `node -e 0` (the
 * yardstick: Node's own start-up on this machine at this moment), and the median ratio is
 * held against the targets: `--help` within 4× the yardstick, a Fake-Model `run` of the
 * built-in demo in an empty folder within 12×. Whole-process wall time is what a user waits;
 * the pairing keeps the ratio meaningful when the machine's speed drifts.
 *
 *   pnpm --filter @coding-agent/cli bench:startup
 *
 * Builds the CLI and the packages it imports first (`turbo run build`), as publishing does.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROUNDS = 15;
const TARGETS = { help: 4, run: 12 } as const;
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const bin = join(packageDir, "bin", "coding-agent.js");

execFileSync(
  "pnpm",
  ["exec", "turbo", "run", "build", "--filter=@coding-agent/cli...", "--output-logs=errors-only"],
  {
    cwd: packageDir,
    stdio: "inherit",
  },
);

const home = await mkdtemp(join(tmpdir(), "coding-agent-startup-home-"));
const empty = await mkdtemp(join(tmpdir(), "coding-agent-startup-ws-"));
const env = { ...process.env, CODING_AGENT_HOME: home, NO_COLOR: "1" };

/** Wall milliseconds of one whole process; throws when it does not exit as expected. */
function timed(argv: readonly string[], cwd: string, expectCode: number): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, argv, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const elapsed = performance.now() - started;
  if (result.status !== expectCode)
    throw new Error(`${argv.join(" ")} exited ${result.status}: ${String(result.stderr)}`);
  return elapsed;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Median of A, of B and of the pairwise ratio A/B over ROUNDS pairs (one warm-up pair first). */
function paired(name: string, argv: readonly string[], expectCode: number) {
  const yardstick = ["-e", "0"];
  timed(argv, empty, expectCode);
  timed(yardstick, empty, 0);
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ms = timed(argv, empty, expectCode);
    const floor = timed(yardstick, empty, 0);
    a.push(ms);
    b.push(floor);
    ratios.push(ms / floor);
  }
  return { name, ms: median(a), floorMs: median(b), ratio: median(ratios) };
}

const results = [
  { ...paired("--help", [bin, "--help"], 0), target: TARGETS.help },
  // The built-in demo: the Fake Model's default script, no tests, in an empty folder.
  { ...paired('run "目标"', [bin, "run", "目标", "--json"], 0), target: TARGETS.run },
];
await rm(home, { recursive: true, force: true });
await rm(empty, { recursive: true, force: true });

console.log(`start-up of the built CLI, ${ROUNDS} pairs each, load ${loadavg()[0]?.toFixed(2)}`);
let failed = 0;
for (const r of results) {
  const ok = r.ratio <= r.target;
  if (!ok) failed += 1;
  console.log(
    `  ${r.name.padEnd(12)} ${r.ms.toFixed(0).padStart(5)} ms · node -e 0 ${r.floorMs.toFixed(0).padStart(3)} ms · ` +
      `ratio ${r.ratio.toFixed(1)}× (target ≤ ${r.target}×) ${ok ? "met" : "NOT met"}`,
  );
}
process.exitCode = failed === 0 ? 0 : 1;
