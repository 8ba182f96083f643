/**
 * Per-step overhead of `runAgent` on the path users run: the CLI always passes an
 * `AbortSignal` (Ctrl-C) and real tools are async. Measured with and without a trace
 * sink, against a naive loop making the same calls in the same process (the same
 * zero-latency replaying provider, the same async `echo` tool, the same signal, and a
 * history array it appends to: nothing the loop does not do), and against the Vercel AI
 * SDK 6's `generateText` on the same replayed turns. Targets (issue: the loop as phases):
 * per-step overhead at 100 steps ≤ 10 µs and ≤ 12× the naive loop; flat to 10,000 steps
 * (≤ 2× the 100-step figure); per-run setup (a 1-step run minus one step) ≤ 50 µs; heap
 * kept by finished runs linear in their steps; ≤ 1/15 of the AI SDK's cost per step.
 * Run: `pnpm --filter @coding-agent/agent-core bench`.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { generateText, type LanguageModel, stepCountIs, tool } from "ai";
import { z } from "zod";
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

const SIZES = [1, 10, 100, 1_000, 10_000] as const;
/** Sizes the AI SDK is measured at: its cost per step grows with the history (quadratic). */
const SDK_SIZES = [10, 100] as const;
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
async function microsPerStep(
  loop: Loop,
  steps: number,
  totalSteps = TOTAL_STEPS,
): Promise<{ cpu: number; wall: number }> {
  const turns = script(steps);
  const runsPerRound = Math.max(1, Math.round(totalSteps / steps / ROUNDS));
  // Warm-up of about a fifth of the measured steps whatever the size: 20 runs of 10 steps
  // leave the JIT cold.
  const warmUp = Math.max(2, Math.round(totalSteps / 5 / steps));
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

/** A language model of the AI SDK's specification v3. */
type LanguageModelV3 = Extract<LanguageModel, { readonly specificationVersion: "v3" }>;

/** The same replayed turns as the AI SDK's language model (spec v3), with nothing recorded. */
function sdkModel(steps: number): LanguageModelV3 {
  let next = 0;
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "replay",
    supportedUrls: {},
    doGenerate: async (options) => {
      options.abortSignal?.throwIfAborted();
      next += 1;
      if (next < steps) {
        const input = JSON.stringify({ text: `m${next}` });
        return {
          content: [{ type: "tool-call", toolCallId: `call_${next}`, toolName: "echo", input }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
    doStream: () => Promise.reject(new Error("not streamed")),
  };
}

const sdkTools = {
  echo: tool({
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => text,
  }),
};

const sdk: Loop = async (_turns, steps) => {
  const result = await generateText({
    model: sdkModel(steps),
    prompt: "bench",
    tools: sdkTools,
    stopWhen: stepCountIs(steps),
    abortSignal: signal,
  });
  if (result.steps.length !== steps) throw new Error(`bad AI SDK run: ${result.steps.length}`);
  return result;
};

const header = [
  "steps",
  "naive",
  "runAgent",
  "ratio",
  "+ trace sink",
  "ratio",
  "runAgent wall",
  "heap B/step",
];
const rows: string[][] = [header];
const cpu = new Map<number, { naive: number; plain: number; traced: number }>();
for (const steps of SIZES) {
  const naiveMicros = await microsPerStep(naive, steps);
  const plainMicros = await microsPerStep(plain, steps);
  const tracedMicros = await microsPerStep(traced, steps);
  const retained = await retainedBytesPerStep(steps);
  cpu.set(steps, { naive: naiveMicros.cpu, plain: plainMicros.cpu, traced: tracedMicros.cpu });
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
const sdkRows: string[][] = [["steps", "AI SDK 6 generateText", "runAgent", "runAgent / AI SDK"]];
const sdkRatios: number[] = [];
for (const steps of SDK_SIZES) {
  // A tenth of the steps: at about a millisecond a step, the SDK is measured well enough.
  const sdkMicros = await microsPerStep(sdk, steps, TOTAL_STEPS / 10);
  const ours = cpu.get(steps)?.plain ?? Number.NaN;
  sdkRatios.push(ours / sdkMicros.cpu);
  sdkRows.push([
    steps.toLocaleString("en-US"),
    sdkMicros.cpu.toFixed(2),
    ours.toFixed(2),
    `1/${(sdkMicros.cpu / ours).toFixed(0)}`,
  ]);
}

function print(table: string[][]): void {
  const widths =
    table[0]?.map((_, column) => Math.max(...table.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of table)
    console.log(row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join("  "));
}

console.log("path: an AbortSignal passed, an async echo tool, zero-latency replayed model");
console.log(`µs/step of CPU time (median of ${ROUNDS} rounds), except the wall column\n`);
print(rows);
console.log("");
print(sdkRows);

const at100 = cpu.get(100);
const at10k = cpu.get(10_000);
const oneStep = cpu.get(1);
if (at100 !== undefined && at10k !== undefined && oneStep !== undefined) {
  const check = (ok: boolean) => (ok ? "ok  " : "MISS");
  const ratio = at100.plain / at100.naive;
  const flat = at10k.plain / at100.plain;
  const setup = oneStep.plain - at100.plain;
  const sdkWorst = Math.max(...sdkRatios);
  console.log("\ntargets:");
  console.log(
    `${check(at100.plain <= 10)} per step at 100 steps: ${at100.plain.toFixed(2)} µs (≤ 10)`,
  );
  console.log(
    `${check(ratio <= 12)} per step at 100 steps / naive loop: ${ratio.toFixed(1)}x (≤ 12x)`,
  );
  console.log(`${check(flat <= 2)} per step at 10,000 / at 100 steps: ${flat.toFixed(2)} (≤ 2)`);
  console.log(
    `${check(setup <= 50)} per-run setup (1-step run minus one step): ${setup.toFixed(1)} µs (≤ 50)`,
  );
  console.log(
    `${check(sdkWorst <= 1 / 15)} runAgent / AI SDK per step, worst size: 1/${(1 / sdkWorst).toFixed(0)} (≤ 1/15)`,
  );
}
console.log(
  `node ${process.version}, heap after: ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`,
);
