import { findExerciseRegions, splitLines } from "../learner/exercise-regions.ts";
import { type CheckLine, checkOf } from "./check-line.ts";

/** The README section where the exercise starts: text before it is read before working. */
const EXERCISE_HEADING = "## 代码实验";
/**
 * A solution line shorter than this (spaces left out) says too little to give the answer
 * away (`return env;`, `} else {`), and would match by chance.
 */
const MIN_ANSWER_CHARS = 20;

export const squeeze = (text: string) => text.replace(/\s+/g, "");
/** A comment line's start: `//`, `/*`, `/**` or a JSDoc `*`. */
const COMMENT = /^\s*(\/\/|\/\*\*?|\*)\s?/;

/** A solution line that is code, long enough to count as part of the answer. */
export function answerLine(line: string): string | undefined {
  if (COMMENT.test(line)) return undefined;
  // A statement's closing `;`, `{` or `,` is not what makes it the answer.
  const body = squeeze(line).replace(/[;{,]$/, "");
  return body.length >= MIN_ANSWER_CHARS ? body : undefined;
}

/** The lines inside the exercise regions of every file. */
export function regionLines(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [file, text] of files) {
    const lines = splitLines(text);
    const scan = findExerciseRegions(lines);
    if (!scan.ok) continue;
    found.set(
      file,
      scan.regions.flatMap((region) => lines.slice(region.start + 1, region.end)),
    );
  }
  return found;
}

/**
 * The answer stays behind the hints (docs/architecture.md, verify:lesson rule 11): no code
 * line of the solution's exercise regions appears in a comment of the starter or in the
 * README before `## 代码实验`. A line the starter's region has as code too is scaffolding
 * both share, not the answer.
 */
export function checkAnswerLeaks(
  readme: string | undefined,
  starter: ReadonlyMap<string, string>,
  solution: ReadonlyMap<string, string>,
): CheckLine {
  const starterRegions = regionLines(starter);
  const readmeText = squeeze(readme?.split(`\n${EXERCISE_HEADING}`)[0] ?? "");
  const problems: string[] = [];
  for (const [file, lines] of regionLines(solution)) {
    const scaffold = new Set(
      (starterRegions.get(file) ?? []).flatMap((line) => answerLine(line) ?? []),
    );
    const comments = squeeze(
      splitLines(starter.get(file) ?? "")
        .filter((line) => COMMENT.test(line))
        .map((line) => line.replace(COMMENT, ""))
        .join(" "),
    );
    for (const line of lines) {
      const answer = answerLine(line);
      if (answer === undefined || scaffold.has(answer)) continue;
      const shown = line.trim();
      if (comments.includes(answer)) {
        problems.push(`starter 的 ${file} 的注释里写出了答案的一行：${shown}`);
      }
      if (readmeText.includes(answer)) {
        problems.push(`README 在“${EXERCISE_HEADING}”之前写出了答案的一行（${file}）：${shown}`);
      }
    }
  }
  return checkOf("答案外露：", problems, "starter 的注释与 README 的前几节都没有写出答案的代码");
}
