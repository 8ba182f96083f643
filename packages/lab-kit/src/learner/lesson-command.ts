import { EXIT_CODES } from "../tool-output.ts";
import { answerUsage, LESSON_USAGE, type LessonAction, parseLessonArgs } from "./cli-args.ts";
import { lookUpLab } from "./lab-lookup.ts";
import { type LearnerContext, repoRootOf } from "./learner-context.ts";

/**
 * `pnpm lesson <hint|reset|diff|watch> NN`: parses the command line, finds the lab and
 * hands over to the subcommand. Returns the exit code (2 for bad usage or an unusable lab).
 * Each subcommand is loaded when asked for: a hint does not wait for vitest (which only
 * `watch` and a test run need) or the diff library to load.
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
  const subcommands: Record<LessonAction, () => Promise<number>> = {
    hint: async () => (await import("./hint-command.ts")).runHintCommand(context, found.lab),
    reset: async () =>
      (await import("./reset-command.ts")).runResetCommand(context, found.lab, {
        yes: command.yes,
      }),
    diff: async () =>
      (await import("./diff-command.ts")).runDiffCommand(context, found.lab, {
        yes: command.yes,
      }),
    watch: async () => (await import("./watch-command.ts")).runWatchCommand(context, found.lab),
  };
  return subcommands[command.action]();
}
