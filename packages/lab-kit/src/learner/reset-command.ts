import path from "node:path";
import { toPosixPath } from "../posix-path.ts";
import { EXIT_CODES } from "../tool-output.ts";
import type { ResolvedLab } from "./lab-lookup.ts";
import { askConfirmation, type LearnerContext, repoRootOf } from "./learner-context.ts";
import { applyReset, backUpStarter, backupDir, planReset } from "./reset-starter.ts";
import { checkTestsIntegrity, describeIntegrity } from "./tampering.ts";
import { colorsFor } from "./terminal.ts";

/**
 * `pnpm lesson reset NN`: backs up the learner's starter into `.bootcamp/backups/`, then
 * restores it to HEAD. Touches nothing outside that lab's `starter/`.
 */
export async function runResetCommand(
  context: LearnerContext,
  lab: ResolvedLab,
  options: { readonly yes: boolean },
): Promise<number> {
  const colors = colorsFor(context.stdout, context.env);
  const out = (text = "") => context.stdout.write(`${text}\n`);
  const err = (text: string) => context.stderr.write(`${text}\n`);
  const repoRoot = await repoRootOf(context);
  const starter = toPosixPath(path.relative(repoRoot, lab.starterDir));
  const [integrity, plan] = await Promise.all([
    checkTestsIntegrity(lab),
    planReset(lab.starterDir),
  ]);
  const notice = describeIntegrity(lab, integrity);
  if (notice !== undefined) out(colors.red(notice));
  if (plan.kind === "uncommitted") {
    err(`无法重置：${starter} 没有提交到 git，找不到可以恢复的版本。`);
    return EXIT_CODES.failed;
  }
  if (plan.kind === "unchanged") {
    out(`${starter} 与提交时完全相同，不需要重置。`);
    return EXIT_CODES.ok;
  }
  out(colors.bold(`将重置第 ${lab.id} 课的 ${starter}：`));
  for (const file of plan.restore) out(`  恢复  ${file}`);
  for (const file of plan.remove) out(`  删除  ${file}（你新建的文件）`);
  const target = backupDir(repoRoot, lab.id, context.now?.() ?? new Date());
  const shownTarget = toPosixPath(path.relative(repoRoot, target));
  out(`重置前会把整个 starter 备份到 ${shownTarget}/`);
  if (!options.yes) {
    const answer = await askConfirmation(context, "确定重置吗？(y/N) ");
    if (answer === undefined) {
      err("需要确认才能重置，但当前不是交互式终端。确认无误后请加 --yes：");
      err(`  pnpm lesson reset ${lab.id} --yes`);
      return EXIT_CODES.usage;
    }
    if (!answer) {
      out("已取消，没有改动任何文件。");
      return EXIT_CODES.failed;
    }
  }
  const count = await backUpStarter(lab.starterDir, target);
  await applyReset(lab.starterDir, plan);
  out(colors.green(`已重置 ${starter}。`));
  out(`你原来的 ${count} 个文件备份在 ${shownTarget}/`);
  return EXIT_CODES.ok;
}
