import type { CliArgs } from "./parse-args.ts";
import type { RunResult } from "./run-result.ts";

/** 模拟运行完成所需的步数，以及每一步“思考”多久。 */
const STEPS_TO_FINISH = 3;
const STEP_MS = 400;

/** 等待 `ms` 毫秒；signal 先中止就提前结束。 */
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
 * Agent Loop（第 05 课）的替身，让这个命令可以手动试用：它走三个慢步，到 `maxSteps` 停下，signal 中
 * 止后以 `cancelled` 结束。
 */
export async function simulateRun(args: CliArgs, signal: AbortSignal): Promise<RunResult> {
  for (let steps = 0; ; steps += 1) {
    // 每一步之前检查，就像真正的循环在每次模型调用之前检查一样。
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
