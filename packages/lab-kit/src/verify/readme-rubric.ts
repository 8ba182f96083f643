import type { LessonManifest } from "../manifest.ts";
import { CAPSTONE, type CheckLine, checkOf, failed, GATE } from "./check-line.ts";
import { codeSpans, readmeSection } from "./readme-outputs.ts";

const RUBRIC_HEADING = "## 验收 Rubric";
const PROOF_COLUMN = "证明";

/** The code spans of the 证明 column, per table row (1-based row number within the table). */
function proofCells(readme: string): { row: number; spans: string[] }[] | undefined {
  const table = (readmeSection(readme, RUBRIC_HEADING)?.lines ?? []).filter((line) =>
    line.trim().startsWith("|"),
  );
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
    .map((line, index) => ({ row: index + 1, spans: codeSpans(cells(line)[column] ?? "") }));
}

/**
 * The README's 验收 Rubric table agrees with `lesson.json`'s rubric (docs/architecture.md,
 * verify:lesson rule 10). A code span names a proof when it starts with `gate:` or
 * `capstone:`, contains " > ", or is a lab or capstone test's full name; other code spans
 * (commands, paths) and prose are free.
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
  for (const { row, spans } of rows) {
    for (const span of spans) {
      // A capstone test may be cited without its `capstone:` prefix.
      const capstone = capstoneTests.has(span);
      const names =
        capstone ||
        span.startsWith(GATE) ||
        span.startsWith(CAPSTONE) ||
        span.includes(" > ") ||
        knownTests.has(span);
      const inRubric = proofs.has(span) || (capstone && proofs.has(`${CAPSTONE}${span}`));
      if (names && !inRubric) {
        problems.push(`表格第 ${row} 行的证明 "${span}" 不在 lesson.json 的 rubric 中`);
      }
    }
  }
  const cited = new Set(rows.flatMap((row) => row.spans));
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
