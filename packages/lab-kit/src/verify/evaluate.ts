import type { LessonManifest, Mutation } from "../manifest.ts";
import type { TargetReport, TestOutcome } from "../runner-types.ts";
import type { CapstoneFileResult } from "./capstone-tests.ts";
import { type CheckLine, describeFailure, failed, kindLabel, passed } from "./check-line.ts";
import { COPIES_DIR } from "./lab-copies.ts";
import type { TypecheckResult } from "./typecheck.ts";

/** `；另有 N 处` when a check found more than the one problem it shows. */
function more(problems: readonly string[]): string {
  return problems.length > 1 ? `；另有 ${problems.length - 1} 处问题` : "";
}

function loadProblem(report: TargetReport): string | undefined {
  const first = report.loadErrors[0];
  if (first === undefined) return undefined;
  const message = first.message.replaceAll(`${COPIES_DIR}/pristine/`, "");
  return `无法加载 ${first.file}（加载错误：${message}）`;
}

/** The solution passes every test (once in file order, once shuffled). */
export function checkSolution(report: TargetReport, shuffleSeed?: number): CheckLine {
  const what = shuffleSeed === undefined ? "解答" : `解答乱序再跑（seed ${shuffleSeed}）`;
  const load = loadProblem(report);
  if (load !== undefined) return failed(`${what}${load}`);
  if (report.tests.length === 0) return failed(`${what}：没有找到任何测试（tests/**/*.test.ts）`);
  const failures = report.tests.filter((test) => test.state === "failed");
  const first = failures[0];
  if (first !== undefined) {
    const more = failures.length > 1 ? `；另有 ${failures.length - 1} 个` : "";
    return failed(`${what}未通过 ${failures.length} 个测试：${describeFailure(first)}${more}`);
  }
  return passed(`${what}通过全部 ${report.tests.length} 个测试`);
}

/**
 * The pristine starter fails exactly `starter.failing`, each by an assertion, and passes
 * every other test.
 */
export function checkStarter(
  manifest: LessonManifest,
  report: TargetReport,
  committed: boolean,
): CheckLine {
  const which = committed
    ? "初始 starter（HEAD 提交版本）"
    : "初始 starter（尚未提交，用工作区版本）";
  const load = loadProblem(report);
  if (load !== undefined) return failed(`${which}${load}，应只以断言失败`);
  const declared = new Set(manifest.starter.failing);
  const byName = new Map(report.tests.map((test) => [test.name, test]));
  const problems: string[] = [];
  for (const name of manifest.starter.failing) {
    const test = byName.get(name);
    if (test === undefined) problems.push(`starter.failing 中的 "${name}" 不是已有的测试名`);
    else if (test.state === "passed") problems.push(`通过了声明应失败的测试 "${name}"`);
    else if (test.failure !== undefined && test.failure.kind !== "assertion") {
      problems.push(`${describeFailure(test)} 应以断言失败，而不是${kindLabel(test.failure.kind)}`);
    }
  }
  for (const test of report.tests) {
    if (test.state === "failed" && !declared.has(test.name)) {
      problems.push(`${describeFailure(test)} 不在 starter.failing 中，却失败了`);
    }
  }
  const first = problems[0];
  if (first !== undefined) return failed(`${which}：${first}${more(problems)}`);
  const others = report.tests.length - declared.size;
  return passed(`${which}恰好在声明的 ${declared.size} 个测试上以断言失败，其余 ${others} 个通过`);
}

/** Starter and solution both typecheck (vitest alone would not notice a type error). */
export function checkTypes(starter: TypecheckResult, solution: TypecheckResult): CheckLine {
  if (!starter.ok) {
    return failed(
      `类型检查：初始 starter 有 ${starter.count} 个类型错误（加载错误·类型），首个：${starter.firstError}`,
    );
  }
  if (!solution.ok) {
    return failed(`类型检查：解答有 ${solution.count} 个类型错误，首个：${solution.firstError}`);
  }
  return passed("类型检查：初始 starter 与解答都没有类型错误");
}

/** A mutation gate: every test it names fails on the mutant (a hang fails via the timeout). */
export function checkGate(
  mutation: Mutation,
  report: TargetReport,
  knownTests: ReadonlySet<string>,
): CheckLine {
  const label = `变异门 ${mutation.name}（${mutation.description}）`;
  const byName = new Map<string, TestOutcome>(report.tests.map((test) => [test.name, test]));
  const unloaded = report.loadErrors.length > 0;
  const problems: string[] = [];
  let timeouts = 0;
  for (const name of mutation.breaks) {
    const test = byName.get(name);
    if (!knownTests.has(name)) problems.push(`breaks 中的 "${name}" 不是已有的测试名`);
    else if (test === undefined && unloaded) continue;
    else if (test?.state === "passed") problems.push(`测试 "${name}" 仍然通过`);
    else if (test?.failure?.kind === "timeout") timeouts++;
  }
  const first = problems[0];
  if (first !== undefined) return failed(`${label}：${first}${more(problems)}`);
  const how = unloaded
    ? "（变异后测试文件无法加载）"
    : timeouts > 0
      ? `（其中 ${timeouts} 个超时）`
      : "";
  return passed(`${label}：声明的 ${mutation.breaks.length} 个测试全部失败${how}`);
}

/** The capstone tests the manifest names pass. */
export function checkCapstone(
  manifest: LessonManifest,
  results: ReadonlyMap<string, CapstoneFileResult>,
): CheckLine {
  const problems: string[] = [];
  let count = 0;
  for (const file of manifest.capstone.tests) {
    const result = results.get(file);
    if (result === undefined) {
      problems.push(`${file}：没有运行`);
      continue;
    }
    count += result.passed;
    for (const problem of result.problems) problems.push(`${file}：${problem}`);
    if (result.problems.length === 0 && result.passed === 0) problems.push(`${file}：没有测试`);
  }
  const first = problems[0];
  if (first !== undefined)
    return failed(`总项目测试（${manifest.capstone.package}）：${first}${more(problems)}`);
  return passed(`总项目测试通过：${manifest.capstone.tests.join("、")}（${count} 个测试）`);
}

const GATE_PREFIX = "gate:";
const CAPSTONE_PREFIX = "capstone:";

/**
 * Every test or gate that hints and the rubric point at exists. A rubric proof is a lab
 * test's full name, `gate:<mutation>`, or `capstone:<full name>` of a test in one of the
 * lesson's capstone test files.
 */
export function checkReferences(
  manifest: LessonManifest,
  knownTests: ReadonlySet<string>,
  capstone: ReadonlyMap<string, CapstoneFileResult>,
): CheckLine {
  const capstoneTests = new Set(
    manifest.capstone.tests.flatMap((file) => capstone.get(file)?.testNames ?? []),
  );
  const gates = new Set(manifest.mutations.map((mutation) => mutation.name));
  const problems: string[] = [];
  manifest.hints.forEach((hint, index) => {
    if (hint.test !== undefined && !knownTests.has(hint.test)) {
      problems.push(`hints.${index}.test 指向不存在的测试 "${hint.test}"`);
    }
  });
  manifest.rubric.forEach((row, index) => {
    for (const proof of row.proof) {
      const ok = proof.startsWith(GATE_PREFIX)
        ? gates.has(proof.slice(GATE_PREFIX.length))
        : proof.startsWith(CAPSTONE_PREFIX)
          ? capstoneTests.has(proof.slice(CAPSTONE_PREFIX.length))
          : knownTests.has(proof);
      if (!ok) problems.push(`rubric.${index}.proof 指向不存在的测试或变异门 "${proof}"`);
    }
  });
  const first = problems[0];
  if (first !== undefined) return failed(`引用检查：${first}${more(problems)}`);
  return passed("提示与 Rubric 引用的测试和变异门都存在");
}
