import type { CliArgs } from "./parse-args.ts";
import type { RunResult } from "./run-result.ts";

/** Steps the simulated run needs to finish, and how long each one "thinks". */
const STEPS_TO_FINISH = 3;
const STEP_MS = 400;

/** Waits `ms`, or less if the signal aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * A stand-in for the agent loop (lesson 05) so the command can be tried by hand: it takes
 * three slow steps, stops at `maxSteps`, and ends `cancelled` once the signal aborts.
 */
export async function simulateRun(args: CliArgs, signal: AbortSignal): Promise<RunResult> {
  for (let steps = 0; ; steps += 1) {
    // Checked before each step, as the real loop does before each model call.
    if (signal.aborted) return { status: "cancelled", summary: "已按 Ctrl-C 取消运行", steps };
    if (steps === STEPS_TO_FINISH) {
      return { status: "completed", summary: `模拟完成：${args.goal}`, steps };
    }
    if (steps >= args.maxSteps) {
      return { status: "budget_exceeded", summary: `已达到最大步骤数 ${args.maxSteps}`, steps };
    }
    await pause(STEP_MS, signal);
  }
}
