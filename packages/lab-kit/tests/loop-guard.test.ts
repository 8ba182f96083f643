import { describe, expect, it } from "vitest";
import { createLoopGuard } from "../src/run/loop-guard.ts";
import { LOOP_TIMEOUT_MESSAGE } from "../src/run/settings.ts";

/**
 * A guard on hand-driven clocks (ms). `at(wall, cpu)` moves them (cpu left as it was when not
 * given), runs one loop iteration, and says what it threw: the guard's message, or undefined.
 */
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
  const at = (wall: number, cpu = clock.cpu): string | undefined => {
    clock.wall = wall;
    clock.cpu = cpu;
    try {
      guard();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  return { guard, clock, at };
}

describe("createLoopGuard", () => {
  it("throws once a loop has kept the event loop from turning for the limit of CPU time", () => {
    const { guard, at } = guardOn({ cpu: true });
    expect(at(999, 999)).toBeUndefined();
    expect(at(1_000, 1_000)).toBe(LOOP_TIMEOUT_MESSAGE);
    expect(guard.fired).toBe(true);
    // Again at the next iteration: a loop that caught the error does not get away.
    expect(at(1_001)).toBe(LOOP_TIMEOUT_MESSAGE);
  });

  it("lets a loop that only waited for a busy core go on until it has used the limit itself", () => {
    const { clock, at } = guardOn({ cpu: true });
    expect(at(1_000, 400)).toBeUndefined();
    // 600 ms of CPU are still missing: no CPU reading before 600 ms more of wall time.
    const reads = clock.cpuReads;
    expect(at(1_599, 2_000)).toBeUndefined();
    expect(clock.cpuReads).toBe(reads);
    expect(at(1_600)).toBe(LOOP_TIMEOUT_MESSAGE);
  });

  it("stops a loop at the wall limit however little CPU it got, before its test would time out", () => {
    const { at } = guardOn({ cpu: true });
    expect(at(1_799, 100)).toBeUndefined();
    expect(at(1_800)).toBe(LOOP_TIMEOUT_MESSAGE);
  });

  it("counts from the last turn of the event loop, and restart clears what fired", () => {
    const { guard, clock, at } = guardOn({ cpu: true });
    clock.wall = 900;
    clock.cpu = 900;
    guard.turn();
    expect(at(1_800, 1_800)).toBeUndefined();
    expect(at(1_900, 1_900)).toBe(LOOP_TIMEOUT_MESSAGE);
    guard.restart();
    expect(guard.fired).toBe(false);
    expect(at(1_900)).toBeUndefined();
  });

  it("falls back to wall time where Node cannot tell a thread's CPU time", () => {
    const { at } = guardOn({ cpu: false });
    expect(at(999)).toBeUndefined();
    expect(at(1_000)).toBe(LOOP_TIMEOUT_MESSAGE);
  });
});
