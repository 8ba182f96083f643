import {
  fitsBudget,
  largestFitting,
  type ObservationBudget,
  omitMiddle,
} from "../observation-budget.ts";
import { clipMessage, MAX_MESSAGE_CHARS } from "./test-name.ts";
import type { RunTestsResult } from "./test-report.ts";

/** The shortest a failure's message is clipped to before failures are left out. */
const MIN_MESSAGE_CHARS = 300;

/**
 * `result` fitted to the observation budget, giving up the least useful text first:
 * the output's end (kept as long as it fits), then the length of each failure's
 * message (down to 300 characters), then the last failures, counted in
 * `omittedFailures` with a note saying how to see them. Counts are never touched.
 */
export function fitTestsResult(result: RunTestsResult, budget: ObservationBudget): RunTestsResult {
  if (fitsBudget(result, budget)) return result;
  let fitted = result;
  if (result.output !== undefined) {
    const output = result.output;
    const keep = largestFitting(output.length, (n) =>
      fitsBudget({ ...result, output: omitMiddle(output, n) }, budget),
    );
    fitted = { ...result, output: omitMiddle(output, keep) };
    if (fitsBudget(fitted, budget)) return fitted;
  }
  const clipped = (chars: number): RunTestsResult => ({
    ...fitted,
    failures: fitted.failures.map((failure) => ({
      name: failure.name,
      message: clipMessage(failure.message, chars),
    })),
  });
  const chars = largestFitting(MAX_MESSAGE_CHARS, (n) => fitsBudget(clipped(n), budget));
  if (chars >= MIN_MESSAGE_CHARS) return clipped(chars);
  const short = clipped(MIN_MESSAGE_CHARS);
  const listed = (count: number): RunTestsResult => {
    const omitted = short.failures.length - count;
    return {
      ...short,
      failures: short.failures.slice(0, count),
      omittedFailures: omitted,
      note:
        `还有 ${omitted} 个失败没有列出（超出观察预算）：先修前面的；` +
        "要看其余的，用 run_command 只运行其中一个测试文件",
    };
  };
  return listed(largestFitting(short.failures.length, (n) => fitsBudget(listed(n), budget)));
}
