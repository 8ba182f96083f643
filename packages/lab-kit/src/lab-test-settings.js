// The settings every lab test run shares, in a module of their own so a process can read
// them without loading vitest (runner.ts runs in the verifier's parent process, where
// importing `vitest/config` would cost half a second of start-up).

/** The one import specifier through which a lab's shared tests reach the code under test. */
export const LAB_ALIAS = "@lab";

/**
 * Per-test timeout for lab tests. Short on purpose: a learner's endless loop must turn
 * into a failing test within seconds, never a hung terminal.
 */
export const LAB_TEST_TIMEOUT_MS = 2_000;

/**
 * How long past {@link LAB_TEST_TIMEOUT_MS} a test may go without returning before the
 * learner's own test run decides it blocks its worker (a synchronous endless loop, which
 * no in-process timer can interrupt) and ends it, provided its worker has also stopped
 * beating ({@link LAB_HANG_SILENCE_MS}): a test that merely waits is never taken for a
 * loop, however late a busy machine reports its timeout. Short, since each blocked test of
 * a learner's loop costs this wait (four blocked tests of lesson 05 took 22 s with 2 s
 * here, under 15 s with 0.25 s).
 */
export const LAB_HANG_GRACE_MS = 250;

/**
 * How long a running test's worker must have written no beat (lab-test-setup.js writes
 * one every 100 ms while a test runs) before the test past its deadline counts as
 * blocking. A test that only waits keeps beating, so a busy machine that delays vitest's
 * own timeout never turns it into a reported endless loop; a synchronous loop beats
 * never after its start, so it is caught as soon as its deadline passes.
 */
export const LAB_HANG_SILENCE_MS = 1_000;

/**
 * How long a test file may take to load (its imports evaluated, its tests collected)
 * before it counts as blocked by a synchronous loop at a module's top level. Loading is
 * far slower than a test on a busy machine (vite transforms every file on first use).
 */
export const LAB_IMPORT_TIMEOUT_MS = 10_000;

/**
 * The failure of a test that blocked its worker, for a given test timeout; glossary:
 * 超时（同步死循环？）. One text for the learner's run and for `verify:lesson`.
 *
 * @param {number} timeoutMs
 * @returns {string}
 */
export function blockedTestMessage(timeoutMs) {
  return `超时（同步死循环？）：测试超过 ${timeoutMs} ms 仍未返回，且阻塞了事件循环，已强制终止。检查循环的退出条件。`;
}

/** The failure a learner sees for a test that blocked its worker. */
export const LAB_HANG_MESSAGE = blockedTestMessage(LAB_TEST_TIMEOUT_MS);

/** The failure of a test file that never finished loading. One text for both runs too. */
export const IMPORT_HANG_MESSAGE =
  "加载测试文件时卡住了（模块顶层的同步死循环？），已强制终止。检查被导入的源文件里、函数之外的循环。";
