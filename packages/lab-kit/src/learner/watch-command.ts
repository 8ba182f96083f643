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
 * How long after a SIGINT a watch waits for vitest to end on its own (Ctrl-C in a terminal
 * reaches the whole process group, and vitest closes its watcher) before ending it.
 */
const SIGINT_GRACE_MS = 1_000;

/**
 * Makes the watch end, with vitest, when the process that started it goes away (pnpm ended
 * by SIGTERM or SIGINT leaves this process behind, adopted by init) or when a SIGINT reaches
 * this process and not vitest's. Both end it as a SIGTERM does: `runLabTests` then kills
 * its child and removes its temp folder. Returns the function that stops watching.
 */
function endWithParentOrInterrupt(): () => void {
  const parent = process.ppid;
  const end = () => process.kill(process.pid, "SIGTERM");
  const poll = setInterval(() => {
    if (process.ppid !== parent) end();
  }, PARENT_POLL_MS);
  poll.unref();
  let grace: NodeJS.Timeout | undefined;
  const onInterrupt = () => {
    grace ??= setTimeout(end, SIGINT_GRACE_MS);
    grace.unref();
  };
  process.on("SIGINT", onInterrupt);
  return () => {
    clearInterval(poll);
    if (grace !== undefined) clearTimeout(grace);
    process.removeListener("SIGINT", onInterrupt);
  };
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
  const stopWatching = endWithParentOrInterrupt();
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
