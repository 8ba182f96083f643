// Setup file that runLabTargets (runner.ts) adds to every vitest project it builds.
// It posts each test's start and end, under its target's label, on a BroadcastChannel to
// the vitest process (runner-child.js), which forwards them to the parent. A message posted
// before a test blocks its worker forever (a learner's `while (true) {}`) is still
// delivered, so the parent learns which test hung. It also skips the tests a previous
// round found hanging, and after each file undoes what a file may leave behind for the
// next file of a shared worker (fake timers, stubbed globals and environment variables).
import { afterAll, afterEach, beforeEach, inject, vi } from "vitest";
import { targetOfFile } from "./runner-paths.js";

const targets = inject("labKitTargets") ?? [];
const channelName = inject("labKitChannel");
const channel = channelName ? new BroadcastChannel(channelName) : undefined;
// Never keep a worker alive just for this channel.
if (channel && "unref" in channel) channel.unref();

/**
 * @param {"test-start" | "test-end"} type @param {string} label @param {string} name
 * @param {number} [timeout]
 */
function record(type, label, name, timeout) {
  channel?.postMessage({
    type,
    project: label,
    name,
    ...(timeout === undefined ? {} : { timeout }),
  });
}

beforeEach((context) => {
  const target = targetOfFile(targets, context.task.file.filepath);
  if (target === undefined) return;
  const name = context.task.fullTestName ?? context.task.name;
  if (target.skip.includes(name)) {
    context.skip();
    return;
  }
  record("test-start", target.label, name, context.task.timeout);
});

afterEach((context) => {
  const target = targetOfFile(targets, context.task.file.filepath);
  if (target !== undefined) {
    record("test-end", target.label, context.task.fullTestName ?? context.task.name);
  }
});

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
