// Setup file of a learner's own lab test run (lab-test.js adds it to every test file).
// It records each test's start and end with a *synchronous* write, so the supervising
// process learns which test is running even when that test blocks its worker forever (a
// learner's `while (true) {}`), and it fails at once, with the hang message, each test the
// supervisor found blocking in an earlier attempt of this run, so the rest can run.
// The verifier's runner-setup.js does the same for verify:lesson, where a blocking test is
// skipped and reported by the runner instead of failing inside vitest's own output.
import { appendFileSync, readFileSync } from "node:fs";
// From node:timers, not the globals: a learner's test may install vitest's fake timers.
import { clearInterval, setInterval } from "node:timers";
import { afterEach, beforeEach, inject } from "vitest";
import { LAB_HANG_MESSAGE } from "./lab-test-settings.js";

const progressFile = inject("labTestProgressFile");
/** While a test runs, its worker writes a beat this often: a blocked worker writes none. */
const BEAT_MS = 100;
/** @type {ReturnType<typeof setInterval> | undefined} */
let beating;
const hungFile = inject("labTestHungFile");

/** @param {{ task: { name: string, fullTestName?: string, timeout?: number, file?: { filepath: string } } }} context */
function keyOf(context) {
  return JSON.stringify([
    context.task.file?.filepath ?? "",
    context.task.fullTestName ?? context.task.name,
  ]);
}

/** @returns {string[]} */
function hungTests() {
  if (!hungFile) return [];
  try {
    return JSON.parse(readFileSync(hungFile, "utf8"));
  } catch {
    return [];
  }
}

beforeEach((context) => {
  const key = keyOf(context);
  if (hungTests().includes(key)) {
    const error = new Error(LAB_HANG_MESSAGE);
    // No stack: the place to look is the learner's loop, not this file.
    error.stack = `Error: ${LAB_HANG_MESSAGE}`;
    throw error;
  }
  if (progressFile) {
    appendFileSync(
      progressFile,
      // The test's own timeout: a test given a longer one may run that long without blocking.
      `${JSON.stringify({ event: "start", key, at: Date.now(), timeout: context.task.timeout })}\n`,
    );
    // A test that only waits (a promise that never settles) keeps its worker's event loop
    // turning, so the beats go on and vitest's own timeout reports it; a synchronous loop
    // stops them at once. The supervisor tells the two apart by the beats, not the clock.
    clearInterval(beating);
    beating = setInterval(() => {
      appendFileSync(progressFile, `${JSON.stringify({ event: "beat", key, at: Date.now() })}\n`);
    }, BEAT_MS);
  }
});

afterEach((context) => {
  clearInterval(beating);
  beating = undefined;
  if (progressFile) {
    appendFileSync(
      progressFile,
      `${JSON.stringify({ event: "end", key: keyOf(context), at: Date.now() })}\n`,
    );
  }
});
