import { firstFailingTest } from "../learner/hints.ts";
import type { LessonManifest } from "../manifest.ts";
import type { TargetReport } from "../run/targets.ts";

/**
 * Where the learner's own (working-tree) starter stands: how many tests pass, the first
 * failing test, and where the hints are. Never a verdict, and never a hint's text: a README
 * shows this output before its exercise, and the hints are for a learner who asks.
 */
export function learnerReport(
  manifest: LessonManifest,
  report: TargetReport,
  edited: boolean,
): string[] {
  const source = edited ? "你改过的 starter：" : "starter（与提交版本相同，还没有改动）：";
  const load = report.loadErrors[0];
  if (load !== undefined) {
    return [
      `${source}无法加载 ${load.file}：${load.message}`,
      "先修好语法或导入错误，测试才能运行。",
    ];
  }
  const total = report.tests.length;
  const passing = report.tests.filter((test) => test.state === "passed").length;
  const firstFailing = firstFailingTest(report.tests);
  if (firstFailing === undefined) {
    return [`${source}通过全部 ${total} 个测试：本课已完成`];
  }
  const lines = [`${source}通过 ${passing}/${total} 个测试；第一个失败的是 "${firstFailing.name}"`];
  lines.push(`提示：需要时运行 pnpm lesson hint ${manifest.id}，一次给一条`);
  return lines;
}
