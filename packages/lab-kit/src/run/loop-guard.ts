/**
 * Setup file of every lab test run: installs the loop guard that guarded code calls at the
 * start of each loop iteration (`loop-guard-transform.ts`). A timer of Node's own (not the
 * global one a test may fake) marks each turn of the worker's event loop; an iteration that
 * finds no turn for {@link LOOP_LIMIT_MS} throws {@link LOOP_TIMEOUT_MESSAGE}, and
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
} from "./settings.ts";

interface LoopGuard {
  (): void;
  /** Whether the guard threw since the current test started. */
  fired: boolean;
  /** A test starts: its loops get the whole limit, whatever ran before it. */
  restart(): void;
}

const TURN_MS = 50;

function createLoopGuard(): LoopGuard {
  // Bound now: a test's fake timers replace the global clock, not this function.
  const now = performance.now.bind(performance);
  let lastTurn = now();
  setInterval(() => {
    lastTurn = now();
  }, TURN_MS).unref();
  const guard = (() => {
    if (now() - lastTurn < LOOP_LIMIT_MS) return;
    guard.fired = true;
    const error = new Error(LOOP_TIMEOUT_MESSAGE);
    // The place to look is the learner's loop, the first frame below this one.
    Error.captureStackTrace(error, guard);
    throw error;
  }) as LoopGuard;
  guard.fired = false;
  guard.restart = () => {
    guard.fired = false;
    lastTurn = now();
  };
  return guard;
}

const scope = globalThis as unknown as Record<string, LoopGuard | undefined>;
// One guard per worker: its timer and clock serve every file the worker runs.
scope[LOOP_GUARD_GLOBAL] ??= createLoopGuard();
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
