// `pnpm lessons [--json]`: every lesson by week with the learner's progress and the next one.
import { runLessonsCommand } from "@bootcamp/lab-kit/learner";

process.exitCode = await runLessonsCommand(
  {
    cwd: process.cwd(),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    // The runner (vitest and all) loads only when a starter has to run: a hint answered from
    // the lessons cache does not wait for it.
    runTargets: async (targets, options) =>
      (await import("@bootcamp/lab-kit")).runLabTargets(targets, options),
  },
  process.argv.slice(2),
);
