import type { LessonManifest } from "../manifest.ts";
import { type CheckLine, checkOf, failed } from "./check-line.ts";

/** The README section whose table must agree with `lesson.json`'s rubric. */
export const RUBRIC_HEADING = "## 验收 Rubric";
const PROOF_COLUMN = "证明";
const GATE = "gate:";
const CAPSTONE = "capstone:";

/** The code spans of the 证明 column, per table row (1-based row number within the table). */
function proofCells(readme: string): { row: number; spans: string[] }[] | undefined {
  const lines = readme.split("\n");
  const start = lines.findIndex((line) => line.trim() === RUBRIC_HEADING);
  if (start === -1) return undefined;
  const section: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("## ")) break;
    section.push(line);
  }
  const table = section.filter((line) => line.trim().startsWith("|"));
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((cell) => cell.trim());
  const header = table[0];
  if (header === undefined) return undefined;
  const column = cells(header).indexOf(PROOF_COLUMN);
  if (column === -1) return undefined;
  return table
    .slice(1)
    .filter((line) => !/^\|[\s|:-]+\|$/.test(line.trim()))
    .map((line, index) => ({
      row: index + 1,
      spans: [...(cells(line)[column] ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ""),
    }));
}

/**
 * The README's 验收 Rubric table agrees with `lesson.json`'s rubric. The rule:
 * 1. README.md has a `## 验收 Rubric` section with a table that has a 证明 column;
 * 2. every code span in that column that names a proof (it starts with `gate:` or
 *    `capstone:`, or it is the full name of a lab test or of one of the lesson's capstone
 *    tests) is a proof of `lesson.json`'s rubric (a capstone test may be cited with or
 *    without its `capstone:` prefix);
 * 3. every `gate:` proof of `lesson.json`'s rubric appears in that column.
 * Other code spans (commands, paths) and prose are free.
 */
export function checkReadmeRubric(
  readme: string | undefined,
  manifest: LessonManifest,
  knownTests: ReadonlySet<string>,
  capstoneTests: ReadonlySet<string>,
): CheckLine {
  if (readme === undefined) return failed("README 验收 Rubric：找不到 README.md");
  const rows = proofCells(readme);
  if (rows === undefined) {
    return failed(`README 验收 Rubric：找不到“${RUBRIC_HEADING}”下带“${PROOF_COLUMN}”列的表格`);
  }
  const proofs = new Set(manifest.rubric.flatMap((row) => row.proof));
  const problems: string[] = [];
  const cited = new Set<string>();
  for (const { row, spans } of rows) {
    for (const span of spans) {
      cited.add(span);
      const names =
        span.startsWith(GATE) ||
        span.startsWith(CAPSTONE) ||
        span.includes(" > ") ||
        knownTests.has(span);
      if (capstoneTests.has(span)) {
        cited.add(`${CAPSTONE}${span}`);
        if (!proofs.has(`${CAPSTONE}${span}`) && !proofs.has(span)) {
          problems.push(`表格第 ${row} 行的证明 "${span}" 不在 lesson.json 的 rubric 中`);
        }
      } else if (names && !proofs.has(span)) {
        problems.push(`表格第 ${row} 行的证明 "${span}" 不在 lesson.json 的 rubric 中`);
      }
    }
  }
  for (const proof of proofs) {
    if (proof.startsWith(GATE) && !cited.has(proof)) {
      problems.push(`lesson.json 的 rubric 证明 "${proof}" 没有出现在表格里`);
    }
  }
  return checkOf(
    "README 验收 Rubric：",
    problems,
    "README 验收 Rubric 与 lesson.json 的 rubric 一致",
  );
}
