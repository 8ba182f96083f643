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
