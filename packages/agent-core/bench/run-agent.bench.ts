/**
 * Per-step overhead of `runAgent` against a naive, unguarded loop making the same
 * calls in the same process: a zero-latency scripted provider and an `echo` tool.
 * The cost per step must stay flat from 10 to 10,000 steps (no quadratic copying
 * of history). Run: `pnpm --filter @coding-agent/agent-core bench`.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { runAgent, type ToolSet } from "../src/index.ts";
import { createScriptedProvider, type ScriptedTurn } from "../src/testing/index.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const SIZES = [10, 1_000, 10_000] as const;
/** Steps measured per size: enough runs that each size does ~200k steps. */
const TOTAL_STEPS = 200_000;

const echo: ToolSet = { echo: { execute: (input) => input.text } };

function script(steps: number): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  for (let i = 1; i < steps; i += 1) {
    turns.push({ action: { type: "tool_call", tool: "echo", input: { text: `m${i}` } } });
  }
  turns.push({ action: { type: "finish", summary: "done" } });
  return turns;
}

async function guarded(turns: ScriptedTurn[], steps: number): Promise<unknown> {
  const result = await runAgent("bench", createScriptedProvider(turns), echo, {
    maxSteps: steps,
    maxRepeatedActions: 2,
    maxToolCalls: steps,
  });
  if (result.status !== "completed" || result.steps !== steps)
    throw new Error(`bad run: ${result.reason}`);
  return result;
}

/** The loop without guard, validation, redaction, bounds or immutability. */
async function naive(turns: ScriptedTurn[], steps: number): Promise<unknown> {
  const provider = createScriptedProvider(turns);
  const signal = new AbortController().signal;
  const observations: string[] = [];
  let count = 0;
  while (true) {
    const { action } = (await provider.complete(
      { task: { goal: "bench" }, messages: [], step: count + 1, tools: [] },
      signal,
    )) as { action: { type: string; tool: string; input: { text: string } } };
    count += 1;
    if (action.type === "finish") break;
    const value = await echo.echo?.execute(action.input, signal);
    observations.push(`tool:${action.tool}:${JSON.stringify(value)}`);
  }
  if (count !== steps) throw new Error("bad naive run");
  return observations;
}

async function microsPerStep(
  loop: (turns: ScriptedTurn[], steps: number) => Promise<unknown>,
  steps: number,
): Promise<number> {
  const turns = script(steps);
  const runs = Math.max(3, Math.round(TOTAL_STEPS / steps));
  for (let i = 0; i < Math.min(runs, 20); i += 1) await loop(turns, steps); // warm-up
  gc();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i += 1) await loop(turns, steps);
  const elapsedNs = Number(process.hrtime.bigint() - start);
  return elapsedNs / 1_000 / (runs * steps);
}

/**
 * Heap still reachable from finished runs' results, per step. Enough runs are kept
 * alive (about 20,000 steps in all) for the figure to rise above GC noise; a flat
 * figure across sizes means memory linear in history, with no per-step copies.
 */
async function retainedBytesPerStep(steps: number): Promise<number> {
  const turns = script(steps);
  const runs = Math.max(1, Math.round(20_000 / steps));
  const kept: unknown[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < runs; i += 1) kept.push(await guarded(turns, steps));
  gc();
  const after = process.memoryUsage().heapUsed;
  if (kept.length !== runs) throw new Error("unreachable");
  return (after - before) / (runs * steps);
}

const rows: string[][] = [
  ["steps", "runAgent µs/step", "naive µs/step", "ratio", "heap retained B/step"],
];
for (const steps of SIZES) {
  const naiveMicros = await microsPerStep(naive, steps);
  const guardedMicros = await microsPerStep(guarded, steps);
  const retained = await retainedBytesPerStep(steps);
  rows.push([
    steps.toLocaleString("en-US"),
    guardedMicros.toFixed(2),
    naiveMicros.toFixed(2),
    `${(guardedMicros / naiveMicros).toFixed(1)}x`,
    retained.toFixed(0),
  ]);
}
const widths =
  rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
for (const row of rows)
  console.log(row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join("  "));
const flat = rows.slice(1).map((row) => Number(row[1]));
console.log(
  `\nrunAgent at 10,000 steps / at 10 steps: ${((flat[2] ?? 0) / (flat[0] ?? 1)).toFixed(2)} (flat means about 1; target ≤ 2)`,
);
console.log(
  `node ${process.version}, heap after: ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`,
);
