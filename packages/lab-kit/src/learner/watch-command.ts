import path from "node:path";
import { runLabTests } from "../run/lab-test.ts";
import type { ResolvedLab } from "./lab-lookup.ts";
import { type LearnerContext, repoRootOf } from "./learner-context.ts";
import { checkTestsIntegrity, describeIntegrity } from "./tampering.ts";
import { colorsFor } from "./terminal.ts";
import type { WatchReporterOptions } from "./watch-reporter.ts";

const WATCH_REPORTER = path.join(import.meta.dirname, "watch-reporter.ts");

/** How often a watch checks that the process that started it (pnpm, a shell) is still there. */
const PARENT_POLL_MS = 250;

/**
 * Makes the watch end when the process that started it goes away: pnpm ended by SIGTERM or
 * SIGINT leaves this process behind, adopted by init, and it then ends itself as a SIGTERM
 * does (vitest, in this process, closes on SIGTERM and SIGINT). Returns the function that
 * stops watching.
 */
function endWithParent(): () => void {
  const parent = process.ppid;
  const poll = setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, "SIGTERM");
  }, PARENT_POLL_MS);
  poll.unref();
  return () => clearInterval(poll);
}

/**
 * `pnpm lesson watch NN`: vitest's own watch mode on the lab's starter, through the same
 * runner as `pnpm --dir labs/NN-slug/starter test -- --watch` (the one lab config, whose loop
 * guard fails a test stuck in a synchronous loop), with the hint for the first
 * failing test under every result. Resolves when vitest's watcher closes; a SIGTERM or
 * SIGINT to any process of the watch (pnpm, this one, vitest's) ends all of them.
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
  const stopWatching = endWithParent();
  try {
    await runLabTests(lab.starterDir, ["--watch"], {
      reporters: [[WATCH_REPORTER, options]],
      stderr: context.stderr as NodeJS.WritableStream,
    });
  } finally {
    stopWatching();
  }
  return 0;
}
