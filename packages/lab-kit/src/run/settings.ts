/**
 * The settings every lab test run shares: the learner's own (`lab-test`, `pnpm lesson
 * watch`), `pnpm lessons` / `pnpm lesson hint` and `verify:lesson`. Node built-ins only, so
 * the verifier's process reads them without loading vitest.
 */

/** The one import specifier through which a lab's shared tests reach the code under test. */
export const LAB_ALIAS = "@lab";

/**
 * The one time limit of lab code: vitest's per-test (and hook) timeout. Short on purpose: a
 * learner's endless loop turns into a failing test within seconds, never a hung terminal.
 */
export const LAB_TEST_TIMEOUT_MS = 2_000;

/**
 * How long a loop may keep its worker's event loop from turning before the loop guard ends
 * it (`loop-guard-transform.ts`), in the worker's own CPU time: half the test timeout, derived, so that changing the one
 * timeout changes both. Half, because every test a learner's loop blocks pays it in turn
 * (lesson 20's seven tests: 7 s, not 14 s), while no lab code computes synchronously for
 * anywhere near a second.
 */
export const LOOP_LIMIT_MS = LAB_TEST_TIMEOUT_MS / 2;

/**
 * The loop guard counts {@link LOOP_LIMIT_MS} in the worker's own CPU time, so a loop that
 * only waited for a shared core is not stopped; but a loop that has kept the event loop from
 * turning for this much wall time is stopped whatever CPU it got. Its test was about to fail
 * as timed out anyway (vitest fails a test that runs past the timeout, however it ends), and
 * this way the failure says it was a loop. Derived from the one timeout, a little short of it.
 */
export const LOOP_WALL_LIMIT_MS = LAB_TEST_TIMEOUT_MS * 0.9;

/**
 * The coarse backstop for what no loop guard reaches (a hang inside a dependency,
 * catastrophic regex backtracking): a test run that reports no progress at all for this long
 * is ended, and its unfinished files are reported as not run. Longer than any single test of
 * the capstone packages that verify runs beside the labs may take.
 */
export const NO_PROGRESS_MS = 30_000;

/** The start of every endless-loop failure (glossary: 超时（同步死循环？）). */
export const LOOP_TIMEOUT_PREFIX = "超时（同步死循环？）";

/** The failure of a loop that blocked its worker, in a test or while a file loads. */
export const LOOP_TIMEOUT_MESSAGE = `${LOOP_TIMEOUT_PREFIX}：一个循环连续运行超过 ${LOOP_LIMIT_MS} ms，阻塞了事件循环，已中止。检查循环的退出条件。`;

/** Whether an error message is the loop guard's. */
export function isLoopTimeout(message: string): boolean {
  return (
    message.startsWith(LOOP_TIMEOUT_PREFIX) || message.includes(`Error: ${LOOP_TIMEOUT_PREFIX}`)
  );
}

/** The global through which guarded code reaches the loop guard (installed by `loop-guard.ts`). */
export const LOOP_GUARD_GLOBAL = "__labKitLoopGuard";
