import { describe, expect, it } from "vitest";
import { createLoopGuard } from "../src/run/loop-guard.ts";
import { LOOP_TIMEOUT_MESSAGE } from "../src/run/settings.ts";

/** A guard on hand-driven clocks: `wall` and `cpu` are ms, moved by the test. */
function guardOn(options: { cpu: boolean }) {
  const clock = { wall: 0, cpu: 0, cpuReads: 0 };
  const guard = createLoopGuard(
    { cpuMs: 1_000, wallMs: 1_800 },
    {
      now: () => clock.wall,
      threadCpu: options.cpu
        ? () => {
            clock.cpuReads++;
            return clock.cpu;
          }
        : undefined,
    },
  );
  return { guard, clock };
}

describe("createLoopGuard", () => {
  it("throws once a loop has kept the event loop from turning for the limit of CPU time", () => {
    const { guard, clock } = guardOn({ cpu: true });
    clock.wall = 999;
    clock.cpu = 999;
    expect(() => guard()).not.toThrow();
    clock.wall = 1_000;
    clock.cpu = 1_000;
    expect(() => guard()).toThrow(LOOP_TIMEOUT_MESSAGE);
    expect(guard.fired).toBe(true);
    // Again at the next iteration: a loop that caught the error does not get away.
    expect(() => guard()).toThrow(LOOP_TIMEOUT_MESSAGE);
  });

  it("lets a loop that only waited for a busy core go on until it has used the limit itself", () => {
    const { guard, clock } = guardOn({ cpu: true });
    clock.wall = 1_000;
    clock.cpu = 400;
    expect(() => guard()).not.toThrow();
    // 600 ms of CPU are still missing: no CPU reading before 600 ms more of wall time.
    const reads = clock.cpuReads;
    clock.wall = 1_599;
    clock.cpu = 2_000;
    expect(() => guard()).not.toThrow();
    expect(clock.cpuReads).toBe(reads);
    clock.wall = 1_600;
    expect(() => guard()).toThrow(LOOP_TIMEOUT_MESSAGE);
  });

  it("stops a loop at the wall limit however little CPU it got, before its test would time out", () => {
    const { guard, clock } = guardOn({ cpu: true });
    clock.wall = 1_799;
    clock.cpu = 100;
    expect(() => guard()).not.toThrow();
    clock.wall = 1_800;
    expect(() => guard()).toThrow(LOOP_TIMEOUT_MESSAGE);
  });

  it("counts from the last turn of the event loop, and restart clears what fired", () => {
    const { guard, clock } = guardOn({ cpu: true });
    clock.wall = 900;
    clock.cpu = 900;
    guard.turn();
    clock.wall = 1_800;
    clock.cpu = 1_800;
    expect(() => guard()).not.toThrow();
    clock.wall = 1_900;
    clock.cpu = 1_900;
    expect(() => guard()).toThrow(LOOP_TIMEOUT_MESSAGE);
    guard.restart();
    expect(guard.fired).toBe(false);
    expect(() => guard()).not.toThrow();
  });

  it("falls back to wall time where Node cannot tell a thread's CPU time", () => {
    const { guard, clock } = guardOn({ cpu: false });
    clock.wall = 999;
    expect(() => guard()).not.toThrow();
    clock.wall = 1_000;
    expect(() => guard()).toThrow(LOOP_TIMEOUT_MESSAGE);
  });
});
