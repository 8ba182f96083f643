// Setup file that runLabTargets (runner.ts) adds to every target's vitest project.
// It posts each test's start and end on a BroadcastChannel to the vitest process
// (runner-child.js), which forwards them to the parent. A message posted before a test
// blocks its worker forever (a learner's `while (true) {}`) is still delivered, so the
// parent learns which test hung. It also skips the tests a previous round found hanging.
import { afterEach, beforeEach, inject } from "vitest";

const label = inject("labKitLabel");
const channelName = inject("labKitChannel");
const skipped = new Set(inject("labKitSkip") ?? []);
const channel = channelName ? new BroadcastChannel(channelName) : undefined;
// Never keep a worker alive just for this channel.
if (channel && "unref" in channel) channel.unref();

/** @param {"test-start" | "test-end"} type @param {string} name @param {number} [timeout] */
function record(type, name, timeout) {
  channel?.postMessage({
    type,
    project: label,
    name,
    ...(timeout === undefined ? {} : { timeout }),
  });
}

beforeEach((context) => {
  const name = context.task.fullTestName ?? context.task.name;
  if (skipped.has(name)) {
    context.skip();
    return;
  }
  record("test-start", name, context.task.timeout);
});

afterEach((context) => {
  record("test-end", context.task.fullTestName ?? context.task.name);
});
