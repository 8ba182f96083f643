// The hint reporter of `pnpm lesson watch`, a module vitest loads by path with plain,
// serializable options: `runLabTests` (run/lab-test.ts) takes extra reporters that way.
import type { Reporter, TestModule } from "vitest/node";
import type { TargetReport, TestOutcome } from "../run/targets.ts";
import { loadHintState, shownHints } from "./hint-state.ts";
import { diagnosisLines } from "./hint-text.ts";
import { currentHint } from "./hints.ts";
import { lookUpLab, type ResolvedLab } from "./lab-lookup.ts";
import { findOutsideEdits, type OutsideEdit } from "./outside-edits.ts";
import { type Colors, colorsFor } from "./terminal.ts";

/** What one watch run found, in the runner's terms. */
export type WatchRun = Pick<TargetReport, "tests" | "loadErrors">;

/** Converts vitest's finished modules into outcomes, in file then declaration order. */
export function outcomesOf(modules: readonly TestModule[]): WatchRun {
  const tests: TestOutcome[] = [];
  const loadErrors: { file: string; message: string }[] = [];
  for (const module of [...modules].sort((a, b) => a.moduleId.localeCompare(b.moduleId))) {
    const moduleErrors = module.errors();
    const first = moduleErrors[0];
    if (first !== undefined) {
      loadErrors.push({ file: module.relativeModuleId, message: first.message });
    }
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state === "pending") continue;
      const message = result.state === "failed" ? (result.errors[0]?.message ?? "") : undefined;
      tests.push({
        name: test.fullName,
        file: module.relativeModuleId,
        state: result.state,
        ...(message === undefined ? {} : { failure: { kind: "assertion" as const, message } }),
      });
    }
  }
  return { tests, loadErrors };
}

/**
 * The lines printed under a watch run: the hint already reached for the first failing
 * test (never a new one: revealing more is `lesson hint`'s job), or a word of success.
 * `outside`: the learner's edits outside the exercise regions (undefined: unknown).
 */
export function watchHintLines(
  lab: ResolvedLab,
  run: WatchRun,
  shown: ReadonlySet<string>,
  colors: Colors,
  outside?: readonly OutsideEdit[],
): string[] {
  const loadError = run.loadErrors[0];
  if (loadError !== undefined) {
    return [
      colors.red(
        `测试文件无法加载（${loadError.file}）：先修好语法或 import 错误，保存后会自动重跑。`,
      ),
    ];
  }
  const selection = currentHint(lab.manifest, run.tests, shown, outside);
  if (selection.kind === "all_passing") {
    return run.tests.length === 0
      ? [colors.yellow("没有运行任何测试。")]
      : [colors.green(`第 ${lab.id} 课的测试全部通过。运行 pnpm lessons 看下一课。`)];
  }
  const failing = `第一个失败的测试：${selection.test.name}`;
  const diagnosis = diagnosisLines(selection, lab.id);
  if (selection.kind === "no_hint" || selection.kind === "outside_edit") {
    return [failing, ...diagnosis];
  }
  const position = selection.kind === "next" ? selection.position : selection.total;
  const more =
    position < selection.total ? `（下一条：pnpm lesson hint ${lab.id}）` : "（已是最后一条）";
  return [
    failing,
    ...diagnosis,
    colors.cyan(`提示 ${position}/${selection.total}：`) + selection.hint.text + more,
  ];
}

/** What `pnpm lesson watch` tells the reporter: the repository and the lesson id. */
export interface WatchReporterOptions {
  readonly repoRoot: string;
  readonly lessonId: string;
}

/**
 * Prints the hint for the first failing test after every watch run. It rereads the hint
 * state each time, so hints revealed in another terminal show up here.
 */
export default class WatchHintReporter implements Reporter {
  private lab: Promise<ResolvedLab | undefined> | undefined;

  private readonly options: WatchReporterOptions;

  constructor(options: WatchReporterOptions) {
    this.options = options;
  }

  async onTestRunEnd(testModules: readonly TestModule[]): Promise<void> {
    const { repoRoot, lessonId } = this.options;
    this.lab ??= lookUpLab(repoRoot, lessonId, { requireInstall: false }).then((found) =>
      found.ok ? found.lab : undefined,
    );
    const lab = await this.lab;
    if (lab === undefined) return;
    const [{ state }, outside] = await Promise.all([
      loadHintState(repoRoot),
      findOutsideEdits(lab.starterDir),
    ]);
    const colors = colorsFor(process.stdout, process.env);
    const run = outcomesOf(testModules);
    const lines = watchHintLines(lab, run, shownHints(state, lab.id), colors, outside);
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
