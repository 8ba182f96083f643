import path from "node:path";
import { runLabTests } from "../run/lab-test.ts";
import type { ResolvedLab } from "./lab-lookup.ts";
import { type LearnerContext, repoRootOf } from "./learner-context.ts";
import { checkTestsIntegrity, describeIntegrity } from "./tampering.ts";
import { colorsFor } from "./terminal.ts";
import type { WatchReporterOptions } from "./watch-reporter.ts";

const WATCH_REPORTER = path.join(import.meta.dirname, "watch-reporter.ts");

/**
 * `pnpm lesson watch NN`: vitest's own watch mode on the lab's starter, through the same
 * runner as `pnpm --dir labs/NN-slug/starter test -- --watch` (the one lab config, whose loop
 * guard fails a test stuck in a synchronous loop), with the hint for the first
 * failing test under every result. Resolves when vitest's watcher closes.
 */
export async function runWatchCommand(context: LearnerContext, lab: ResolvedLab): Promise<number> {
  const colors = colorsFor(context.stdout, context.env);
  const repoRoot = await repoRootOf(context);
  const notice = describeIntegrity(lab, await checkTestsIntegrity(lab));
  if (notice !== undefined) context.stdout.write(`${colors.red(notice)}\n`);
  context.stdout.write(
    `${colors.bold(`第 ${lab.id} 课 ${lab.manifest.title}`)}：保存文件后自动重跑测试，按 q 退出。\n`,
  );
  const options: WatchReporterOptions = { repoRoot, lessonId: lab.id };
  await runLabTests(lab.starterDir, ["--watch"], {
    reporters: [[WATCH_REPORTER, options]],
    stderr: context.stderr as NodeJS.WritableStream,
  });
  return 0;
}
