import pc from "picocolors";
import type { FailureKind, TestOutcome } from "../run/targets.ts";

/** One line of a verify report: a check that held or failed, said in Chinese. */
export interface CheckLine {
  readonly ok: boolean;
  readonly text: string;
}

/** The verdict on one lab: its checks, then the learner's own starter (which never counts). */
export interface LabVerdict {
  readonly id: string;
  readonly slug: string;
  readonly title: string | undefined;
  /** Said before the checks: what the reader must know to read them (tests edited). */
  readonly notice: readonly string[];
  readonly checks: readonly CheckLine[];
  readonly learner: readonly string[];
  /** True when the checks are a stored verdict: nothing they depend on changed since. */
  readonly cached?: boolean;
}

export function passed(text: string): CheckLine {
  return { ok: true, text };
}

export function failed(text: string): CheckLine {
  return { ok: false, text };
}

/** The prefixes of rubric proofs that name a mutation gate or a capstone test. */
export const GATE = "gate:";
export const CAPSTONE = "capstone:";

/**
 * A check that found `problems`: failed with the first (after `prefix`) and how many more
 * there are (counted in `unit`), or passed with `passText` when there are none.
 */
export function checkOf(
  prefix: string,
  problems: readonly string[],
  passText: string,
  unit = "处问题",
): CheckLine {
  const first = problems[0];
  if (first === undefined) return passed(passText);
  const more = problems.length > 1 ? `；另有 ${problems.length - 1} ${unit}` : "";
  return failed(`${prefix}${first}${more}`);
}

/** True when every check of the lab held. */
export function isSound(verdict: LabVerdict): boolean {
  return verdict.checks.every((check) => check.ok);
}

/** A failure kind in the report's words. */
export const KIND_LABEL: Record<FailureKind, string> = {
  assertion: "断言失败",
  load: "加载错误",
  timeout: "超时",
  error: "抛出错误",
  "no-assertions": "没有断言",
};

/** `"name"（kind：message）` for a failed test. */
export function describeFailure(test: TestOutcome): string {
  const failure = test.failure;
  if (failure === undefined) return `"${test.name}"`;
  // Copies verify writes (`starter/.lab-kit/pristine/src`) are named as the files they copy.
  const message = failure.message.replace(/\.lab-kit\/(?:pristine|mutants\/[^/]+)\//g, "");
  const label = KIND_LABEL[failure.kind];
  // A message that already starts with its kind (超时（同步死循环？）：…) is not labelled twice.
  const text = message.startsWith(label) ? message : `${label}：${message}`;
  return `"${test.name}"（${text}）`;
}

/** The text of a whole verdict, colored unless NO_COLOR is set (picocolors decides). */
export function formatVerdict(verdict: LabVerdict): string {
  return formatVerdictIn(verdict, pc);
}

/** The text of a whole verdict in the colors given (the README check uses none). */
export function formatVerdictIn(
  verdict: LabVerdict,
  colors: ReturnType<typeof pc.createColors>,
): string {
  const title = verdict.title === undefined ? "" : ` · ${verdict.title}`;
  const lines = [colors.bold(`第 ${verdict.id} 课 ${verdict.slug}${title}`)];
  for (const line of verdict.notice) lines.push(colors.yellow(`  ${line}`));
  for (const check of verdict.checks) {
    lines.push(`  ${check.ok ? colors.green("✓") : colors.red("✗")} ${check.text}`);
  }
  if (verdict.cached === true) {
    lines.push(
      colors.dim(
        "  （以上检查结果来自缓存：本课、总项目与 lab-kit 的文件自上次验证后都没有变化；--no-cache 重新验证）",
      ),
    );
  }
  lines.push(
    isSound(verdict)
      ? colors.green(`  结论：第 ${verdict.id} 课可靠`)
      : colors.red(
          `  结论：第 ${verdict.id} 课有 ${verdict.checks.filter((c) => !c.ok).length} 项检查未通过`,
        ),
  );
  if (verdict.learner.length > 0) {
    lines.push(colors.dim("  你自己的 starter（工作区版本，不影响以上结论）："));
    for (const line of verdict.learner) lines.push(`    ${line}`);
  }
  return lines.join("\n");
}

/** The closing line of a multi-lab run: all sound, or which labs are not. */
export function formatSummary(verdicts: readonly LabVerdict[]): string {
  const unsound = verdicts.filter((verdict) => !isSound(verdict));
  return unsound.length === 0
    ? pc.green(`${verdicts.length} 课全部可靠`)
    : pc.red(
        `${unsound.length}/${verdicts.length} 课有检查未通过：${unsound.map((v) => v.id).join("、")}`,
      );
}
