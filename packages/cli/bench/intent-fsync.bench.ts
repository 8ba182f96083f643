/**
 * What the state log costs a tool call (lesson 22): a `coding-agent run` of N `echo`
 * calls with its state log in a `$CODING_AGENT_HOME` on the disk the user's home is on,
 * against the same run whose log writes without fsync. The difference per call is the
 * `tool_intent` fsync (plus `run_finished`'s, once). Both runs do the same work otherwise:
 * same script, same tools, same log lines; only `datasync` is left out of the baseline.
 *
 *   pnpm --filter @coding-agent/cli bench
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../src/cli.ts";
import { setStateLogSyncForBenchmark } from "../src/state/log.ts";

const CALLS = 200;
const ROUNDS = 5;

const script = [
  ...Array.from({ length: CALLS }, (_, index) => ({
    action: { type: "tool_call", tool: "echo", input: { text: `第 ${index} 次` } },
  })),
  { action: { type: "finish", summary: "完成" } },
];

async function runOnce(home: string, workspace: string, scriptPath: string): Promise<number> {
  const started = performance.now();
  const code = await runCli(
    [
      "run",
      "回声",
      "--script",
      scriptPath,
      "--workspace",
      workspace,
      "--max-steps",
      String(CALLS + 5),
      "--max-repeated-actions",
      String(CALLS + 5),
      "--loop-window",
      "2",
      "--json",
    ],
    { stdout: () => {}, stderr: () => {} },
    new AbortController().signal,
    { CODING_AGENT_HOME: home },
  );
  if (code !== 0) throw new Error(`run failed with exit ${code}`);
  return performance.now() - started;
}

const home = await mkdtemp(join(homedir(), ".coding-agent-bench-"));
const workspace = await mkdtemp(join(tmpdir(), "bench-ws-"));
const scriptPath = join(workspace, "..", `bench-script-${process.pid}.json`);
await writeFile(scriptPath, JSON.stringify(script));
try {
  const timings = { fsync: [] as number[], none: [] as number[] };
  await runOnce(home, workspace, scriptPath); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) {
    setStateLogSyncForBenchmark(true);
    timings.fsync.push(await runOnce(home, workspace, scriptPath));
    setStateLogSyncForBenchmark(false);
    timings.none.push(await runOnce(home, workspace, scriptPath));
  }
  setStateLogSyncForBenchmark(true);
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const withSync = median(timings.fsync) / CALLS;
  const without = median(timings.none) / CALLS;
  console.log(
    `state log, ${CALLS} echo calls, median of ${ROUNDS}: ${(withSync * 1000).toFixed(0)} µs per call with the intent fsync, ` +
      `${(without * 1000).toFixed(0)} µs without; the fsync costs ${((withSync - without) * 1000).toFixed(0)} µs per tool call`,
  );
} finally {
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
  await rm(scriptPath, { force: true });
}
