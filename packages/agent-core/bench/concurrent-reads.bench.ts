/**
 * A reply of four reads, each taking 100 ms (a file system or a server answering slowly),
 * through `runAgent` on the path users run: marked `concurrent`, the reads run side by side
 * and the step's tool phase takes about one read's time; the same four tools unmarked run one
 * after another (the baseline does the same work, nothing more). Also the per-step cost of a
 * one-call reply, whose path the batching must not slow. Run:
 * `pnpm --filter @coding-agent/agent-core bench:reads`.
 */
import { performance } from "node:perf_hooks";
import { type Provider, runAgent, type ToolSet } from "../src/index.ts";

const READ_MS = 100;
const READS = 4;
const ROUNDS = 5;

/** Replies with four reads, then a finish, as often as it is asked. */
function fourReads(): Provider {
  let step = 0;
  return {
    complete: async () => {
      step += 1;
      if (step % 2 === 0) return { action: { type: "finish", summary: "done" } };
      return {
        actions: Array.from({ length: READS }, (_, index) => ({
          type: "tool_call",
          tool: "read",
          input: { n: index },
        })),
      };
    },
  };
}

const reads = (concurrent: boolean): ToolSet => ({
  read: {
    concurrent,
    execute: () => new Promise((resolve) => setTimeout(() => resolve("ok"), READ_MS)),
  },
});

async function phaseMs(concurrent: boolean): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    const result = await runAgent("read", fourReads(), reads(concurrent), { maxSteps: 3 });
    if (result.status !== "completed") throw new Error(`run ended ${result.status}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] as number;
}

const together = await phaseMs(true);
const oneByOne = await phaseMs(false);
console.log(
  `${READS} reads of ${READ_MS} ms in one reply: concurrent ${together.toFixed(0)} ms · one after another ${oneByOne.toFixed(0)} ms (median of ${ROUNDS} runs)`,
);

/** One call a reply: the common path, which must stay as cheap as before. */
const STEPS = 10_000;
let calls = 0;
const oneCall: Provider = {
  complete: async () => {
    calls += 1;
    return calls > STEPS
      ? { action: { type: "finish", summary: "done" } }
      : { action: { type: "tool_call", tool: "echo", input: { text: "x" } } };
  },
};
const echo: ToolSet = { echo: { execute: async (input) => input.text } };
const started = performance.now();
await runAgent("echo", oneCall, echo, { maxSteps: STEPS + 1 }, new AbortController().signal);
const perStep = ((performance.now() - started) * 1000) / STEPS;
console.log(`one-call reply: ${perStep.toFixed(2)} µs a step over ${STEPS} steps`);
process.exitCode = together < oneByOne / 2 ? 0 : 1;
