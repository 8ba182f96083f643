// `pnpm lesson <hint|reset|diff|watch> NN`: the learner's tools for one lesson.
import { runLabTargets } from "@bootcamp/lab-kit";
import { runLessonCommand } from "@bootcamp/lab-kit/learner";

process.exitCode = await runLessonCommand(
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
