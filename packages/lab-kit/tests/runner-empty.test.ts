import { fork } from "node:child_process";
import { expect, it, vi } from "vitest";
import { runLabTargets } from "../src/run/runner.ts";

vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:child_process")>();
  return { ...actual, fork: vi.fn(actual.fork) };
});

// A verify whose every verdict comes from the cache asks for no targets: it must not pay
// for a vitest process start (half a second) to run nothing.
it("starts no vitest process when there is nothing to run", async () => {
  expect(await runLabTargets([])).toEqual([]);
  expect(fork).not.toHaveBeenCalled();
});
