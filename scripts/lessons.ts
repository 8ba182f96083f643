// `pnpm lessons [--json]`: every lesson by week with the learner's progress and the next one.
import { runLabTargets } from "@bootcamp/lab-kit";
import { runLessonsCommand } from "@bootcamp/lab-kit/learner";

process.exitCode = await runLessonsCommand(
  {
    cwd: process.cwd(),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    runTargets: (targets) => runLabTargets(targets),
  },
  process.argv.slice(2),
);
