import type { TargetReport, TestOutcome } from "../run/targets.ts";
import { type CheckLine, checkOf, failed } from "./check-line.ts";
import { type ReadmeBlock, readmeBlocks } from "./readme-blocks.ts";
import type { CommandRun } from "./readme-commands.ts";

type OutputKind = "verify" | "starter-test" | "solution-test" | "cli";
const KINDS: readonly OutputKind[] = ["verify", "starter-test", "solution-test", "cli"];

/**
 * A block that shows part of an output says so where the learner reads it, in the prose
 * leading into it: `节选` and which part (`节选：前 4 个失败的测试和摘要`, `节选测试列表与摘要`).
 * A bare `（节选）` says nothing of what was left out.
 */
const EXCERPT = /节选(?![）)，,。.]|$)/;

/** Whether a block's lead says it is an excerpt, and of what. */
export function declaresExcerpt(block: Pick<ReadmeBlock, "lead">): boolean {
  return block.lead !== undefined && EXCERPT.test(block.lead);
}

/** The lines under a `## ` heading of a README up to the next one, and the heading's index. */
export function readmeSection(
  readme: string,
  heading: string,
): { start: number; lines: string[] } | undefined {
  const lines = readme.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) return undefined;
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return { start, lines: lines.slice(start + 1, end === -1 ? undefined : end) };
}

/** The texts of a line's `code spans`. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");
}

/** Text that only a command's output has: such a block must be marked. */
const LOOKS_LIKE_OUTPUT = [
  /^\s*结论：第 \d+ 课/,
  /^ FAIL {2}/,
  /^\s+Tests {2}\d/,
  /^\s*✓ 清单有效/,
  /^coding-agent：/,
  /^状态：\S+（/,
  /^\{"week":\d+,"ok":/,
  /^exit=\d+$/,
];

/**
 * A line of the README matches a real line: equal after the seed number is normalised,
 * where a standalone `N` in the README stands for any number; with `prefix`, the README
 * line need only begin the real one (a line the README cuts short with `…`).
 */
export function lineMatches(shown: string, real: string, prefix = false): boolean {
  const seed = (text: string) => text.replace(/seed \d+/g, "seed N");
  const pattern = seed(shown.trimEnd())
    .split(/(?<![A-Za-z0-9_])N(?![A-Za-z0-9_])/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("(?:\\d+|N)");
  return new RegExp(`^${pattern}${prefix ? "" : "$"}`).test(seed(real.trimEnd()));
}

export interface OutputSources {
  /** The verifier's report of this lab as printed for an untouched starter, without colors. */
  readonly verifyLines: readonly string[];
  /** The committed starter's run. */
  readonly starter: TargetReport;
  readonly solution: TargetReport;
  /** What each cli block's commands printed, by the block's line (`readme-commands.ts`). */
  readonly commands: ReadonlyMap<number, CommandRun>;
}

/** The name of the check, counted: this line is itself part of the verify block. */
export function readmeOutputsText(checked: number): string {
  return `README 的 ${checked} 个输出块与真实运行一致`;
}

/** How many blocks of the README are marked with a known kind (what the check counts). */
export function countMarkedBlocks(readme: string | undefined): number {
  if (readme === undefined) return 0;
  return readmeBlocks(readme).filter((block) => KINDS.includes(block.mark as OutputKind)).length;
}

/** Checks every marked output block of a README against the real outputs. */
export function checkReadmeOutputs(readme: string | undefined, sources: OutputSources): CheckLine {
  if (readme === undefined) return failed("README 输出块：找不到 README.md");
  const problems: string[] = [];
  for (const block of readmeBlocks(readme)) {
    const where = `第 ${block.line} 行的输出块`;
    if (block.mark === undefined) {
      if (block.lines.some((line) => LOOKS_LIKE_OUTPUT.some((shape) => shape.test(line)))) {
        problems.push(
          `${where}像是命令的输出，却没有 <!-- output: … --> 标记（${KINDS.join("、")}）`,
        );
      }
      continue;
    }
    if (!KINDS.includes(block.mark as OutputKind)) {
      problems.push(`${where}的标记 "${block.mark}" 未知（可用：${KINDS.join("、")}）`);
      continue;
    }
    const kind = block.mark as OutputKind;
    const found =
      kind === "verify"
        ? compareVerify(block.lines, sources.verifyLines)
        : kind === "cli"
          ? compareCommandOutput(
              block.lines,
              sources.commands.get(block.line),
              declaresExcerpt(block),
            )
          : compareTestExcerpt(
              block.lines,
              kind === "starter-test" ? sources.starter : sources.solution,
              declaresExcerpt(block),
            );
    for (const problem of found) problems.push(`${where}（${kind}）：${problem}`);
  }
  // Counted as the verify block's own copy of this line is (`countMarkedBlocks`).
  return checkOf("README 输出块：", problems, readmeOutputsText(countMarkedBlocks(readme)));
}

/** The verify block is the whole report, line for line. */
function compareVerify(shown: readonly string[], real: readonly string[]): string[] {
  const length = Math.max(shown.length, real.length);
  for (let index = 0; index < length; index += 1) {
    const left = shown[index];
    const right = real[index];
    if (left === undefined) {
      return [`块在第 ${index + 1} 行结束，而真实输出还有：“${right?.trim()}”`];
    }
    if (right === undefined) return [`真实输出在第 ${index} 行结束，块里还有：“${left.trim()}”`];
    if (!lineMatches(left, right)) {
      return [`第 ${index + 1} 行是“${left.trim()}”，真实输出是“${right.trim()}”`];
    }
  }
  return [];
}

/**
 * A cli block is everything its commands printed, line for line and exactly; a declared
 * excerpt is some of those lines, each exactly, in the order the commands printed them.
 */
function compareCommandOutput(
  shown: readonly string[],
  run: CommandRun | undefined,
  excerpt: boolean,
): string[] {
  if (run === undefined) return ["命令没有运行"];
  if (!run.ok) return [run.problem];
  if (excerpt) {
    let from = 0;
    for (const [index, raw] of shown.entries()) {
      const line = raw.trimEnd();
      const at = run.lines.findIndex(
        (real, position) => position >= from && real.trimEnd() === line,
      );
      if (at === -1) return [`节选的第 ${index + 1} 行“${line}”不在命令的输出里（或顺序不对）`];
      from = at + 1;
    }
    return [];
  }
  const length = Math.max(shown.length, run.lines.length);
  for (let index = 0; index < length; index += 1) {
    const left = shown[index]?.trimEnd();
    const right = run.lines[index]?.trimEnd();
    if (left === undefined) return [`块在第 ${index} 行结束，而命令还打印了：“${right}”`];
    if (right === undefined) return [`命令的输出在第 ${index} 行结束，块里还有：“${left}”`];
    if (left !== right) return [`第 ${index + 1} 行是“${left}”，命令打印的是“${right}”`];
  }
  return [];
}

function fileMatches(shown: string, test: TestOutcome): boolean {
  const tail = shown.replace(/^(\.\.\/)+/, "");
  return test.file === tail || test.file.endsWith(`/${tail}`);
}

function titleMatches(title: string, test: TestOutcome): boolean {
  return test.name === title || test.name.endsWith(` > ${title}`);
}

/** vitest's count line: `1 failed | 3 passed (4)`. */
function counts(failedCount: number, passedCount: number): string {
  const parts = [
    ...(failedCount > 0 ? [`${failedCount} failed`] : []),
    ...(passedCount > 0 ? [`${passedCount} passed`] : []),
  ];
  return `${parts.join(" | ")} (${failedCount + passedCount})`;
}

/**
 * An excerpt of vitest's terminal report (colors and times left out): every line must be
 * one of the kinds vitest prints (docs/architecture.md, "README output blocks") and say
 * what the run said; any other line (a diff, console output) is refused.
 */
function compareTestExcerpt(
  shown: readonly string[],
  report: TargetReport,
  excerpt: boolean,
): string[] {
  const problems: string[] = [];
  const tests = report.tests;
  const failedTests = tests.filter((test) => test.state === "failed");
  // Which failures the block lists. Their order is not checked: the report holds outcomes,
  // not the order vitest printed them in (a table's rows, a retried test).
  const shownFailures = new Set<TestOutcome>();
  let current: TestOutcome | undefined;
  shown.forEach((raw, index) => {
    const line = raw.trimEnd();
    const at = `第 ${index + 1} 行`;
    const problem = (text: string) => problems.push(`${at}${text}`);
    if (line.trim() === "") return;
    let match = /^\s*❯ (\S+) \((\d+) tests? \| (\d+) failed\)$/.exec(line);
    if (match !== null) {
      const [, file = "", total, failedCount] = match;
      const inFile = tests.filter((test) => fileMatches(file, test));
      const real = `${inFile.length} tests | ${inFile.filter((test) => test.state === "failed").length} failed`;
      if (real !== `${total} tests | ${failedCount} failed`)
        problem(`写着 ${file} 有 ${total} 个测试、${failedCount} 个失败，真实运行是 ${real}`);
      return;
    }
    match = /^\s*✓ (\S+\.test\.ts) \((\d+) tests?\)$/.exec(line);
    if (match !== null) {
      const [, file = "", total] = match;
      const inFile = tests.filter((test) => fileMatches(file, test));
      const failing = inFile.filter((test) => test.state !== "passed").length;
      if (String(inFile.length) !== total || failing > 0) {
        problem(
          `写着 ${file} 的 ${total} 个测试全部通过，真实运行是 ${inFile.length} 个测试、${failing} 个没有通过`,
        );
      }
      return;
    }
    match = /^ FAIL {2}(\S+) > (.+)$/.exec(line);
    if (match !== null) {
      const [, file = "", name = ""] = match;
      current = failedTests.find((test) => test.name === name && fileMatches(file, test));
      if (current === undefined) problem(`的 "${name}" 在真实运行中没有失败（或不存在）`);
      else shownFailures.add(current);
      return;
    }
    match = /^(\w*(?:Error|Exception)): (.*)$/.exec(line);
    if (match !== null) {
      if (current === undefined) {
        problem("的错误信息前面没有 FAIL 行，无法对应到测试");
        return;
      }
      const real = current.failure?.message ?? "";
      const cut = line.endsWith("…") && lineMatches(line.slice(0, -1), real, true);
      if (!cut && !lineMatches(line, real))
        problem(`写着“${line}”，"${current.name}" 真实的失败是“${real}”`);
      current = undefined;
      return;
    }
    match = /^\s*([×✓]) (.+)$/.exec(line);
    if (match !== null) {
      const [, sign, title = ""] = match;
      const state = sign === "×" ? "failed" : "passed";
      const candidates = tests.filter((test) => titleMatches(title, test));
      if (candidates.length === 0) problem(`的测试 "${title}" 不存在`);
      else if (!candidates.some((test) => test.state === state)) {
        problem(`写着 "${title}" ${state === "failed" ? "失败" : "通过"}，真实运行正相反`);
      }
      return;
    }
    match = /^⎯+ Failed Tests (\d+) ⎯+$/.exec(line.trim());
    if (match !== null) {
      if (Number(match[1]) !== failedTests.length)
        problem(`写着 ${match[1]} 个失败，真实运行是 ${failedTests.length} 个`);
      return;
    }
    match = /^\s*(Test Files|Tests) {2}(.+)$/.exec(line);
    if (match !== null) {
      const [, what, said = ""] = match;
      const failedFiles = new Set(failedTests.map((test) => test.file)).size;
      const real =
        what === "Tests"
          ? counts(failedTests.length, tests.filter((test) => test.state === "passed").length)
          : counts(
              failedFiles + report.loadErrors.length,
              new Set(tests.map((test) => test.file)).size - failedFiles,
            );
      if (!lineMatches(said, real)) problem(`写着 ${what} ${said}，真实运行是 ${real}`);
      return;
    }
    problem(`“${line.trim()}”不是能与测试报告核对的一行（差异、console 输出请改用文字说明）`);
  });
  if (!excerpt && shownFailures.size < failedTests.length) {
    problems.push(
      `块里列出 ${shownFailures.size} 个失败的测试，真实运行有 ${failedTests.length} 个：不是全部时，块前的说明要写“节选”和选了哪部分（如“节选：${failedTests.length} 个失败的测试里的 ${shownFailures.size} 个”）`,
    );
  }
  return problems;
}
