/**
 * Per-step overhead of `runAgent` on the path users run: the CLI always passes an
 * `AbortSignal` (Ctrl-C) and real tools are async. Measured with and without a trace
 * sink, against a naive loop making the same calls in the same process: the same
 * zero-latency scripted provider, the same async `echo` tool, the same signal, and a
 * history array it appends to (and nothing the loop does not do: no copies). The cost
 * per step must stay flat from 10 to 10,000 steps (no quadratic copying of history),
 * and the heap kept by finished runs must grow linearly with their steps.
 * Run: `pnpm --filter @coding-agent/agent-core bench`.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  type Message,
  type ModelResponse,
  type Provider,
  type RunOptions,
  runAgent,
  type ToolSet,
} from "../src/index.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const SIZES = [10, 1_000, 10_000] as const;
/** Steps measured per size and variant: enough runs that each does ~100k steps. */
const TOTAL_STEPS = Number(process.env.BENCH_TOTAL_STEPS ?? 100_000);

const echo: ToolSet = { echo: { execute: async (input) => input.text } };
const signal = new AbortController().signal;

function script(steps: number): ModelResponse[] {
  const turns: ModelResponse[] = [];
  for (let i = 1; i < steps; i += 1) {
    turns.push({ action: { type: "tool_call", tool: "echo", input: { text: `m${i}` } } });
  }
  turns.push({ action: { type: "finish", summary: "done" } });
  return turns;
}

/**
 * A zero-latency model that replays replies and honours the signal, as a network
 * provider does. Both loops use it. Not the testing package's scripted provider: that
 * one records a deep snapshot of every request, which for the naive loop's mutable
 * history is a copy of the whole history per step (quadratic: the 10,000-step naive
 * runs then exhausted the heap), work a real provider does not do.
 */
function replay(turns: readonly ModelResponse[]): Provider {
  let next = 0;
  return {
    complete: async (_request, signal) => {
      signal.throwIfAborted();
      const turn = turns[next];
      if (turn === undefined) throw new Error("script exhausted");
      next += 1;
      return turn;
    },
  };
}

type Loop = (turns: ModelResponse[], steps: number) => Promise<unknown>;

function guarded(options: RunOptions): Loop {
  return async (turns, steps) => {
    const result = await runAgent(
      "bench",
      replay(turns),
      echo,
      { maxSteps: steps, maxRepeatedActions: 2, maxToolCalls: steps },
      signal,
      options,
    );
    if (result.status !== "completed" || result.steps !== steps)
      throw new Error(`bad run: ${result.reason}`);
    return result;
  };
}

/** The loop without guard, validation, redaction, bounds, trace or immutability. */
const naive: Loop = async (turns, steps) => {
  const provider = replay(turns);
  const task = { goal: "bench" };
  const messages: Message[] = [{ role: "user", content: "bench" }];
  let count = 0;
  while (true) {
    const { action } = (await provider.complete(
      { task, messages, step: count + 1, tools: [] },
      signal,
    )) as { action: { type: string; tool: string; input: { text: string }; summary: string } };
    count += 1;
    if (action.type === "finish") {
      messages.push({ role: "assistant", type: "finish", summary: action.summary });
      break;
    }
    const callId = `call_${count}`;
    messages.push({
      role: "assistant",
      type: "tool_call",
      callId,
      tool: action.tool,
      input: action.input,
    });
    const value = await echo.echo?.execute(action.input, signal);
    const content = JSON.stringify(value);
    messages.push({
      role: "tool",
      callId,
      tool: action.tool,
      ok: true,
      content,
      truncated: false,
      originalLength: content.length,
    });
  }
  if (count !== steps) throw new Error("bad naive run");
  return messages;
};

const plain = guarded({});
const traced = guarded({ trace: () => {} });

/** Rounds the measured runs are split into; each figure is the median round. */
const ROUNDS = 5;

/**
 * Microseconds per step: CPU time of this process (what the loop costs, even when
 * other processes crowd the cores) and wall time (what a user waits, on a quiet
 * machine the same figure plus a little). The runs are timed in `ROUNDS` equal rounds
 * and the median round is reported: on a shared machine one round can be slowed by a
 * neighbour by a quarter or more, and the median is what the loop itself costs.
 */
async function microsPerStep(loop: Loop, steps: number): Promise<{ cpu: number; wall: number }> {
  const turns = script(steps);
  const runsPerRound = Math.max(1, Math.round(TOTAL_STEPS / steps / ROUNDS));
  // Warm-up of about 20,000 steps whatever the size: 20 runs of 10 steps leave the JIT cold.
  const warmUp = Math.max(2, Math.round(20_000 / steps));
  for (let i = 0; i < warmUp; i += 1) await loop(turns, steps);
  const cpuRounds: number[] = [];
  const wallRounds: number[] = [];
  // One collection before all rounds, not one per round: the background threads that
  // finish a forced collection would be counted in the next round's CPU time.
  gc();
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < runsPerRound; i += 1) await loop(turns, steps);
    const cpu = process.cpuUsage(cpuStart);
    const elapsedNs = Number(process.hrtime.bigint() - start);
    cpuRounds.push((cpu.user + cpu.system) / (runsPerRound * steps));
    wallRounds.push(elapsedNs / 1_000 / (runsPerRound * steps));
  }
  return { cpu: median(cpuRounds), wall: median(wallRounds) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
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
  for (let i = 0; i < runs; i += 1) kept.push(await plain(turns, steps));
  gc();
  const after = process.memoryUsage().heapUsed;
  if (kept.length !== runs) throw new Error("unreachable");
  return (after - before) / (runs * steps);
}

const header = [
  "steps",
  "naive",
  "runAgent",
  "ratio",
  "+ trace sink",
  "ratio",
  "runAgent wall",
  "heap retained B/step",
];
const rows: string[][] = [header];
const perStep: { plain: number; traced: number }[] = [];
for (const steps of SIZES) {
  const naiveMicros = await microsPerStep(naive, steps);
  const plainMicros = await microsPerStep(plain, steps);
  const tracedMicros = await microsPerStep(traced, steps);
  const retained = await retainedBytesPerStep(steps);
  perStep.push({ plain: plainMicros.cpu, traced: tracedMicros.cpu });
  rows.push([
    steps.toLocaleString("en-US"),
    naiveMicros.cpu.toFixed(2),
    plainMicros.cpu.toFixed(2),
    `${(plainMicros.cpu / naiveMicros.cpu).toFixed(1)}x`,
    tracedMicros.cpu.toFixed(2),
    `${(tracedMicros.cpu / naiveMicros.cpu).toFixed(1)}x`,
    plainMicros.wall.toFixed(2),
    retained.toFixed(0),
  ]);
}
const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
console.log("path: an AbortSignal passed, an async echo tool, zero-latency scripted provider");
console.log(`µs/step of CPU time (median of ${ROUNDS} rounds), except the wall column\n`);
for (const row of rows)
  console.log(row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join("  "));
const first = perStep[0];
const last = perStep.at(-1);
if (first !== undefined && last !== undefined) {
  console.log(
    `\nat 10,000 steps / at 10 steps: runAgent ${(last.plain / first.plain).toFixed(2)}, with trace sink ${(last.traced / first.traced).toFixed(2)} (flat means about 1; target ≤ 2)`,
  );
}
console.log("target: runAgent ≤ 10 µs/step at 10 steps on this path");
console.log(
  `node ${process.version}, heap after: ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`,
);
