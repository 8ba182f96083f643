import { firstFailingTest } from "../learner/hints.ts";
import type { LessonManifest, Mutation } from "../manifest.ts";
import type { TargetReport, TestOutcome } from "../run/targets.ts";
import type { CapstoneFileResult } from "./capstone-tests.ts";
import {
  CAPSTONE,
  type CheckLine,
  checkOf,
  describeFailure,
  failed,
  GATE,
  KIND_LABEL,
  passed,
} from "./check-line.ts";
import { COPIES_DIR } from "./lab-copies.ts";
import { LAB_TEST_GLOB } from "./test-files.ts";
import type { TypecheckResult } from "./typecheck.ts";

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
  if (report.tests.length === 0) return failed(`${what}：没有找到任何测试（${LAB_TEST_GLOB}）`);
  const failures = report.tests.filter((test) => test.state === "failed");
  return checkOf(
    `${what}未通过 ${failures.length} 个测试：`,
    failures.map(describeFailure),
    `${what}通过全部 ${report.tests.length} 个测试`,
    "个",
  );
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
      problems.push(
        `${describeFailure(test)} 应以断言失败，而不是${KIND_LABEL[test.failure.kind]}`,
      );
    }
  }
  for (const test of report.tests) {
    if (test.state === "failed" && !declared.has(test.name)) {
      problems.push(`${describeFailure(test)} 不在 starter.failing 中，却失败了`);
    }
  }
  const others = report.tests.length - declared.size;
  return checkOf(
    `${which}：`,
    problems,
    `${which}恰好在声明的 ${declared.size} 个测试上以断言失败，其余 ${others} 个通过`,
  );
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

/**
 * A mutation gate catches its mutant only when the mutant typechecks, its tests load, and
 * every test the gate names fails the declared way (assertion, or `"expect": "timeout"`):
 * a mutant that fails only to load, throws, or is merely slow was not caught by the tests.
 */
export function checkGate(
  mutation: Mutation,
  report: TargetReport,
  knownTests: ReadonlySet<string>,
  types: TypecheckResult | undefined,
): CheckLine {
  const label = `变异门 ${mutation.name}（${mutation.description}）`;
  const expected = mutation.expect ?? "assertion";
  const byName = new Map(report.tests.map((test) => [test.name, test]));
  const problems: string[] = [];
  if (types !== undefined && !types.ok) {
    problems.push(`变异后的代码有 ${types.count} 个类型错误，首个：${types.firstError}`);
  }
  const load = loadProblem(report);
  if (load !== undefined) problems.push(`变异后${load}，这不算抓住变异`);
  for (const name of mutation.breaks) {
    const test = byName.get(name);
    if (!knownTests.has(name)) problems.push(`breaks 中的 "${name}" 不是已有的测试名`);
    else if (test === undefined) continue;
    else if (test.state === "skipped") problems.push(`测试 "${name}" 没有运行`);
    else if (test.state !== "failed") problems.push(`测试 "${name}" 仍然通过`);
    else if (test.failure?.kind !== expected) {
      const hint =
        expected === "assertion" && test.failure?.kind === "timeout"
          ? '；若这个变异本就让测试挂起，在清单中给这个变异门写 "expect": "timeout"'
          : "";
      const actual = test.failure === undefined ? "失败" : KIND_LABEL[test.failure.kind];
      const should = expected === "timeout" ? "应超时" : "应以断言失败";
      problems.push(`${describeFailure(test)} ${should}，而不是${actual}${hint}`);
    }
  }
  // A learner who makes this mistake asks `lesson hint`, which follows the first failing
  // test and names the gates that declare it: the gate must declare that test, or the hint
  // cannot name the mistake.
  const first = firstFailingTest(report.tests);
  if (first !== undefined && !mutation.breaks.includes(first.name)) {
    problems.push(
      `犯这个错误时第一个失败的测试是 "${first.name}"，它不在 breaks 里：lesson hint 跟着它，说不出这个错误`,
    );
  }
  const how = expected === "timeout" ? "超时，如清单所声明" : "断言失败";
  return checkOf(
    `${label}：`,
    problems,
    `${label}：声明的 ${mutation.breaks.length} 个测试全部${how}`,
  );
}

/** One target whose run the lab test rules inspect, with its name in the report. */
export interface RuleTarget {
  readonly name: string;
  readonly report: TargetReport;
}

const MODIFIER_PROBLEM: Record<NonNullable<TestOutcome["modifier"]>, string> = {
  skip: "被跳过（.skip、.skipIf、.runIf，或同一文件里另有 .only）",
  todo: "是 .todo：没有内容，什么也证明不了",
  fails: "使用了 .fails：抛出任何错误都算通过，证明不了结果",
};

/** The lab's tests can prove something (docs/architecture.md, verify:lesson rule 2). */
export function checkTestRules(
  folderProblems: readonly string[],
  solution: TargetReport,
  targets: readonly RuleTarget[],
): CheckLine {
  // Every target reports the same forbidden import: each is said once.
  const imports = targets.flatMap((target) =>
    (target.report.forbiddenImports ?? []).map(
      (entry) =>
        `${entry.file} 导入了 "${entry.specifier}"：实验测试只能导入 vitest、@lab、@coding-agent/* 运行时包、node: 内置模块和 tests/ 里的文件`,
    ),
  );
  const problems = [...folderProblems, ...new Set(imports)];
  const counts = new Map<string, number>();
  for (const test of solution.tests) counts.set(test.name, (counts.get(test.name) ?? 0) + 1);
  for (const [name, count] of counts) {
    if (count > 1) problems.push(`测试全名 "${name}" 出现了 ${count} 次：按名字验证会含糊不清`);
  }
  for (const test of solution.tests) {
    if (test.modifier !== undefined) {
      problems.push(`测试 "${test.name}" ${MODIFIER_PROBLEM[test.modifier]}`);
    }
    if (test.failure?.kind === "no-assertions") {
      problems.push(`测试 "${test.name}" 没有任何 expect 断言：它什么也证明不了`);
    }
  }
  const declared = solution.tests.length;
  for (const target of targets) {
    if (target.report.loadErrors.length > 0 || solution.loadErrors.length > 0) continue;
    for (const test of target.report.tests) {
      if (test.state === "skipped" && test.modifier === undefined) {
        problems.push(`${target.name}：测试 "${test.name}" 没有运行（运行时被跳过）`);
      }
    }
    const ran = target.report.tests.filter((test) => test.state !== "skipped").length;
    if (ran !== declared) {
      problems.push(`${target.name}：运行了 ${ran} 个测试，而测试文件里有 ${declared} 个`);
    }
  }
  return checkOf(
    "测试规则：",
    problems,
    `测试规则：${declared} 个测试都有断言、只导入允许的模块，并在每个对象上全部运行`,
  );
}

/** The capstone tests pass, and the link to the capstone files (`linkProblems`) holds. */
export function checkCapstone(
  manifest: LessonManifest,
  results: ReadonlyMap<string, CapstoneFileResult>,
  linkProblems: readonly string[],
): CheckLine {
  const problems: string[] = [];
  let count = 0;
  for (const file of manifest.capstone.tests) {
    const result = results.get(file) ?? { passed: 0, testNames: [], problems: ["没有运行"] };
    count += result.passed;
    for (const problem of result.problems) problems.push(`${file}：${problem}`);
    if (result.problems.length === 0 && result.passed === 0) problems.push(`${file}：没有测试`);
  }
  problems.push(...linkProblems);
  return checkOf(
    `总项目测试（${manifest.capstone.package}）：`,
    problems,
    `总项目测试通过：${manifest.capstone.tests.join("、")}（${count} 个测试）`,
  );
}

/**
 * Every lab test, `gate:<mutation>` or `capstone:<full name>` that hints and the rubric
 * point at exists, and every hint hangs on a test the starter fails.
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
  const failing = new Set(manifest.starter.failing);
  manifest.hints.forEach((hint, index) => {
    if (hint.test === undefined) return;
    if (!knownTests.has(hint.test)) {
      problems.push(`hints.${index}.test 指向不存在的测试 "${hint.test}"`);
    } else if (!failing.has(hint.test)) {
      problems.push(
        `hints.${index}.test "${hint.test}" 不在 starter.failing 中：学习者不会在这个测试上失败，永远看不到这条提示`,
      );
    }
  });
  manifest.rubric.forEach((row, index) => {
    for (const proof of row.proof) {
      const ok = proof.startsWith(GATE)
        ? gates.has(proof.slice(GATE.length))
        : proof.startsWith(CAPSTONE)
          ? capstoneTests.has(proof.slice(CAPSTONE.length))
          : knownTests.has(proof);
      if (!ok) problems.push(`rubric.${index}.proof 指向不存在的测试或变异门 "${proof}"`);
    }
  });
  return checkOf(
    "引用检查：",
    problems,
    "提示与 Rubric 引用的测试和变异门都存在，提示都挂在 starter 失败的测试上",
  );
}
