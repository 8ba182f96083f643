import { EXIT_CODES } from "../tool-output.ts";
import { loadHintState, rememberHint, saveHintState, shownHints } from "./hint-state.ts";
import { answerCommand, diagnosisLines, mistakeLines } from "./hint-text.ts";
import { chooseNextHint, hintKey } from "./hints.ts";
import type { ResolvedLab } from "./lab-lookup.ts";
import { type LearnerContext, repoRootOf } from "./learner-context.ts";
import { findStarterEdits } from "./outside-edits.ts";
import { starterReports, starterTarget } from "./report-cache.ts";
import { checkTestsIntegrity, describeIntegrity } from "./tampering.ts";
import { colorsFor, firstLine } from "./terminal.ts";

/**
 * `pnpm lesson hint NN`: the next hint for the first failing test of the learner's starter,
 * remembered so that the next call goes one further. The starter's report comes from the
 * lessons cache (`report-cache.ts`, shared with `pnpm lessons`) while the lab is unchanged
 * since its last run, so asking again for the next hint runs no test.
 */
export async function runHintCommand(context: LearnerContext, lab: ResolvedLab): Promise<number> {
  const colors = colorsFor(context.stdout, context.env);
  const out = (text = "") => context.stdout.write(`${text}\n`);
  const repoRoot = await repoRootOf(context);
  const target = starterTarget(lab);
  const [integrity, [report = { label: target.label, tests: [], loadErrors: [] }], loaded, edits] =
    await Promise.all([
      checkTestsIntegrity(lab),
      starterReports(repoRoot, [lab], [target], context.runTargets),
      loadHintState(repoRoot),
      findStarterEdits(lab.starterDir),
    ]);
  const notice = describeIntegrity(lab, integrity);
  if (notice !== undefined) out(colors.red(notice));
  if (loaded.warning !== undefined) out(colors.yellow(loaded.warning));
  out(colors.bold(`第 ${lab.id} 课 ${lab.manifest.title}`));
  const loadError = report.loadErrors[0];
  if (loadError !== undefined) {
    out(colors.red(`测试文件无法加载：${loadError.file}`));
    out(`  ${firstLine(loadError.message)}`);
    out("先修好这个错误：常见原因是语法错误、import 写错或导出的名字不对。");
    return EXIT_CODES.ok;
  }
  const selection = chooseNextHint(
    lab.manifest,
    report.tests,
    shownHints(loaded.state, lab.id),
    edits?.outside,
  );
  if (selection.kind === "all_passing") {
    out(colors.green("测试全部通过，不需要提示。"));
    return EXIT_CODES.ok;
  }
  out(`第一个失败的测试：${selection.test.name}`);
  const message = selection.test.failure?.message;
  if (message !== undefined) out(`  失败信息：${firstLine(message)}`);
  const diagnosis = diagnosisLines(selection, lab.id);
  if (diagnosis.length > 0) out(`\n${diagnosis.join("\n")}`);
  if (selection.kind === "no_hint" || selection.kind === "outside_edit") return EXIT_CODES.ok;
  const { hint, total } = selection;
  // A test the starter passed broke in the learner's own code: the answer would not show
  // where, the behaviour above does.
  const stuck =
    selection.regression === undefined
      ? `还卡住的话：${answerCommand(lab.id)}。`
      : "还卡住的话，对照上面说的行为，回到你在练习区域里写的代码找改变了它的那一处。";
  if (selection.kind === "next") {
    const { position } = selection;
    out(`\n${colors.cyan(`提示 ${position}/${total}：`)}${hint.text}\n`);
    const mistakes = mistakeLines(selection, edits?.edited === true);
    if (mistakes.length > 0) out(`${mistakes.join("\n")}\n`);
    out(
      position < total
        ? `还需要下一条？再运行 pnpm lesson hint ${lab.id}`
        : `这是最后一条提示。${stuck}`,
    );
    await saveHintState(repoRoot, rememberHint(loaded.state, lab.id, hintKey(hint)));
  } else {
    out(`\n${colors.cyan(`提示 ${total}/${total}（都已看过，这是最后一条）：`)}${hint.text}\n`);
    out(stuck);
  }
  return EXIT_CODES.ok;
}
