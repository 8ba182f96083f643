import { EXIT_CODES } from "../tool-output.ts";
import type { ResolvedLab } from "./lab-lookup.ts";
import { askConfirmation, type LearnerContext } from "./learner-context.ts";
import { colorizePatch, diffStarterAgainstSolution } from "./lesson-diff.ts";
import { checkTestsIntegrity, describeIntegrity } from "./tampering.ts";
import { colorsFor } from "./terminal.ts";

/**
 * `pnpm lesson diff NN`: the learner's starter against the solution, as a unified diff of
 * the exercise regions (whole files where the learner changed code outside them). It shows
 * the answer, so it says so and asks first; `--yes` is the learner saying it beforehand.
 */
export async function runDiffCommand(
  context: LearnerContext,
  lab: ResolvedLab,
  options: { readonly yes: boolean },
): Promise<number> {
  const colors = colorsFor(context.stdout, context.env);
  const out = (text = "") => context.stdout.write(`${text}\n`);
  const err = (text: string) => context.stderr.write(`${text}\n`);
  if (!options.yes) {
    out(
      colors.yellow(
        `pnpm lesson diff ${lab.id} 会显示第 ${lab.id} 课的参考答案（练习区域里的代码）。`,
      ),
    );
    out(`还没看完提示的话，先运行 pnpm lesson hint ${lab.id}：提示只讲方向和机制，不给代码。`);
    const answer = await askConfirmation(context, "确定要看参考答案吗？(y/N) ");
    if (answer === undefined) {
      err("需要确认才会显示答案，但当前不是交互式终端。确定要看的话加 --yes：");
      err(`  pnpm lesson diff ${lab.id} --yes`);
      return EXIT_CODES.usage;
    }
    if (!answer) {
      out("好的，没有显示答案。");
      return EXIT_CODES.ok;
    }
  }
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
