import { EXIT_CODES } from "../tool-output.ts";
import type { ResolvedLab } from "./lab-lookup.ts";
import type { LearnerContext } from "./learner-context.ts";
import { colorizePatch, diffStarterAgainstSolution } from "./lesson-diff.ts";
import { checkTestsIntegrity, describeIntegrity } from "./tampering.ts";
import { colorsFor } from "./terminal.ts";

/**
 * `pnpm lesson diff NN`: the learner's starter against the solution, as a unified diff of
 * the exercise regions (whole files where the learner changed code outside them).
 */
export async function runDiffCommand(context: LearnerContext, lab: ResolvedLab): Promise<number> {
  const colors = colorsFor(context.stdout, context.env);
  const out = (text = "") => context.stdout.write(`${text}\n`);
  const [integrity, diffs] = await Promise.all([
    checkTestsIntegrity(lab),
    diffStarterAgainstSolution(lab.starterDir, lab.solutionDir),
  ]);
  const notice = describeIntegrity(lab, integrity);
  if (notice !== undefined) out(colors.red(notice));
  out(colors.bold(`第 ${lab.id} 课 ${lab.manifest.title}：你的 starter（-）对比参考答案（+）`));
  if (diffs.length === 0) {
    out(colors.green("你的 starter 与参考答案完全相同。"));
    return EXIT_CODES.ok;
  }
  for (const diff of diffs) {
    out();
    context.stdout.write(colorizePatch(diff.patch, colors));
  }
  const outside = diffs.filter((diff) => diff.scope === "whole-file");
  if (outside.length > 0) {
    out();
    out(
      colors.yellow(
        `注意：${outside.map((diff) => diff.file).join("、")} 在练习区域（// #region exercise）之外也与参考答案不同，上面显示的是整个文件的差异。`,
      ),
    );
  }
  return EXIT_CODES.ok;
}
