// `pnpm lesson <hint|reset|diff|watch> NN`: the learner's tools for one lesson.
import { runLessonCommand } from "@bootcamp/lab-kit/learner";

process.exitCode = await runLessonCommand(
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
