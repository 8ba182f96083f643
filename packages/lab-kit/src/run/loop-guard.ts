/**
 * Setup file of every lab test run: installs the loop guard that guarded code calls at the
 * start of each loop iteration (`loop-guard-transform.ts`). A timer of Node's own (not the
 * global one a test may fake) marks each turn of the worker's event loop; an iteration that
 * finds no turn for {@link LOOP_LIMIT_MS} of the worker's CPU time (or
 * {@link LOOP_WALL_LIMIT_MS} of wall time) throws {@link LOOP_TIMEOUT_MESSAGE}, and
 * again at every later iteration until the loop lets go. A test whose code caught that
 * error and went on still fails with it, after the test.
 */
import { performance } from "node:perf_hooks";
import { setInterval } from "node:timers";
import { afterEach, beforeEach } from "vitest";
import {
  isLoopTimeout,
  LOOP_GUARD_GLOBAL,
  LOOP_LIMIT_MS,
  LOOP_TIMEOUT_MESSAGE,
  LOOP_WALL_LIMIT_MS,
} from "./settings.ts";

export interface LoopGuard {
  (): void;
  /** Whether the guard threw since the current test started. */
  fired: boolean;
  /** A test starts: its loops get the whole limit, whatever ran before it. */
  restart(): void;
  /** The event loop turned (the guard's own timer calls it). */
  turn(): void;
}

export interface LoopClocks {
  /** Wall time in ms. */
  readonly now: () => number;
  /** CPU time this thread has used, in ms; undefined where Node cannot tell. */
  readonly threadCpu: (() => number) | undefined;
}

export interface LoopLimits {
  /** This thread's CPU time since the last turn (wall time where Node cannot tell). */
  readonly cpuMs: number;
  /** Wall time since the last turn, whatever CPU the loop got. */
  readonly wallMs: number;
}

const TURN_MS = 50;

/**
 * The guard itself, on the given clocks. The limit is this thread's CPU time since the last
 * turn where Node tells it: a worker that shares a core with others (more workers than
 * cores, a busy machine) gets less of each second, and a loop that merely waited for the
 * core is not endless — up to the wall limit. The CPU clock is read only once the wall clock
 * has passed the CPU limit, and then only when it could have been reached since the last
 * reading.
 */
export function createLoopGuard(limits: LoopLimits, clocks: LoopClocks): LoopGuard {
  const { now, threadCpu } = clocks;
  let lastTurn = now();
  let cpuAtTurn = threadCpu?.() ?? 0;
  let nextCpuCheck = 0;
  const guard = (() => {
    const wall = now();
    if (wall - lastTurn < limits.cpuMs) return;
    if (threadCpu !== undefined && wall - lastTurn < limits.wallMs) {
      if (wall < nextCpuCheck) return;
      const short = limits.cpuMs - (threadCpu() - cpuAtTurn);
      // The rest of the limit takes at least that much more wall time to use up.
      if (short > 0) {
        nextCpuCheck = wall + short;
        return;
      }
    }
    guard.fired = true;
    const error = new Error(LOOP_TIMEOUT_MESSAGE);
    // The place to look is the learner's loop, the first frame below this one.
    Error.captureStackTrace(error, guard);
    throw error;
  }) as LoopGuard;
  guard.fired = false;
  // A pending CPU check needs no reset: it is never later than a limit after the new turn.
  guard.turn = () => {
    lastTurn = now();
    if (threadCpu !== undefined) cpuAtTurn = threadCpu();
  };
  guard.restart = () => {
    guard.fired = false;
    guard.turn();
  };
  return guard;
}

function installLoopGuard(): LoopGuard {
  const usage = process.threadCpuUsage?.bind(process);
  const guard = createLoopGuard(
    { cpuMs: LOOP_LIMIT_MS, wallMs: LOOP_WALL_LIMIT_MS },
    {
      // Bound now: a test's fake timers replace the global clock, not this function.
      now: performance.now.bind(performance),
      threadCpu:
        usage === undefined
          ? undefined
          : () => {
              const { user, system } = usage();
              return (user + system) / 1000;
            },
    },
  );
  setInterval(() => guard.turn(), TURN_MS).unref();
  return guard;
}

const scope = globalThis as unknown as Record<string, LoopGuard | undefined>;
// One guard per worker: its timer and clock serve every file the worker runs.
scope[LOOP_GUARD_GLOBAL] ??= installLoopGuard();
const guard = scope[LOOP_GUARD_GLOBAL];

beforeEach(() => {
  guard.restart();
});

afterEach((context) => {
  if (!guard.fired) return;
  guard.fired = false;
  const errors = context.task.result?.errors ?? [];
  if (!errors.some((error) => isLoopTimeout(String(error?.message ?? "")))) {
    const error = new Error(LOOP_TIMEOUT_MESSAGE);
    // No stack: the place to look is the learner's loop, not this file.
    error.stack = `Error: ${LOOP_TIMEOUT_MESSAGE}`;
    throw error;
  }
});
