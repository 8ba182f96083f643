import type { ResolvedLab } from "./lab-lookup.ts";
import { type LearnerContext, repoRootOf } from "./learner-context.ts";
import { checkTestsIntegrity, describeIntegrity } from "./tampering.ts";
import { colorsFor } from "./terminal.ts";
import { createHintReporter } from "./watch-hints.ts";

/**
 * `pnpm lesson watch NN`: vitest's own watch mode on the lab's starter (the one lab config,
 * so exactly what `pnpm --dir labs/NN-slug/starter test` runs), with the hint for the first
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
  // Loaded here, not at the top: vitest's Node API costs a few hundred milliseconds to
  // import, and `pnpm lessons` (which shares this module graph) never needs it.
  const { startVitest } = await import("vitest/node");
  const { defineLabConfig } = await import("../vitest-config.js");
  const vitest = await startVitest(
    "test",
    [],
    {
      watch: true,
      root: lab.starterDir,
      config: false,
      reporters: ["default", createHintReporter({ lab, repoRoot, out: context.stdout, colors })],
    },
    defineLabConfig(lab.starterDir),
  );
  await new Promise<void>((resolve) => {
    vitest.onClose(() => resolve());
  });
  return 0;
}
