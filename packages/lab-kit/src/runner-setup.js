// Setup file that runLabTargets (runner.ts) adds to every target's vitest project.
// It records each test's start and end with a *synchronous* write, so the parent process
// learns which test is running even when that test blocks its worker forever (a learner's
// `while (true) {}`), and it skips the tests a previous round already found hanging.
import { appendFileSync } from "node:fs";
import { afterEach, beforeEach, inject } from "vitest";

const label = inject("labKitLabel");
const progressFile = inject("labKitProgressFile");
const skipped = new Set(inject("labKitSkip") ?? []);

/** @param {"start" | "end"} event @param {string} name */
function record(event, name) {
  if (progressFile) appendFileSync(progressFile, `${JSON.stringify({ event, label, name })}\n`);
}

beforeEach((context) => {
  const name = context.task.fullTestName ?? context.task.name;
  if (skipped.has(name)) {
    context.skip();
    return;
  }
  record("start", name);
});

afterEach((context) => {
  record("end", context.task.fullTestName ?? context.task.name);
});
