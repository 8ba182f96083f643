import { EXIT_CODES } from "../tool-output.ts";
import { answerUsage, LESSON_USAGE, parseLessonArgs } from "./cli-args.ts";
import { runDiffCommand } from "./diff-command.ts";
import { runHintCommand } from "./hint-command.ts";
import { lookUpLab } from "./lab-lookup.ts";
import { type LearnerContext, repoRootOf } from "./learner-context.ts";
import { runResetCommand } from "./reset-command.ts";
import { runWatchCommand } from "./watch-command.ts";

/**
 * `pnpm lesson <hint|reset|diff|watch> NN`: parses the command line, finds the lab and
 * hands over to the subcommand. Returns the exit code (2 for bad usage or an unusable lab).
 */
export async function runLessonCommand(
  context: LearnerContext,
  argv: readonly string[],
): Promise<number> {
  const args = answerUsage(parseLessonArgs(argv), LESSON_USAGE, context);
  if ("exitCode" in args) return args.exitCode;
  const command = args.value;
  const repoRoot = await repoRootOf(context);
  // Running tests needs the starter installed; reading and restoring files does not.
  const requireInstall = command.action === "hint" || command.action === "watch";
  const found = await lookUpLab(repoRoot, command.lesson, { requireInstall });
  if (!found.ok) {
    context.stderr.write(`${found.message}\n`);
    return EXIT_CODES.usage;
  }
  switch (command.action) {
    case "hint":
      return runHintCommand(context, found.lab);
    case "reset":
      return runResetCommand(context, found.lab, { yes: command.yes });
    case "diff":
      return runDiffCommand(context, found.lab);
    case "watch":
      return runWatchCommand(context, found.lab);
    default: {
      const unreachable: never = command.action;
      return unreachable;
    }
  }
}
