import type { LessonManifest } from "../manifest.ts";
import { answerLine, regionLines, squeeze } from "./answer-leaks.ts";
import { type CheckLine, checkOf } from "./check-line.ts";

/**
 * A hint may name what the answer uses (a function, a field, an error code) but not write
 * its code: this many characters of a solution line (spaces left out), with a call, a
 * comparison, an arrow or an index among them, give the answer away.
 */
const HINT_CODE_CHARS = 16;
const CODE_PUNCTUATION = /[()=<>!&|?[\]]/;

/** The first run of a solution line's code (squeezed) that a hint's text also holds. */
export function sharedCode(hint: string, answer: string): string | undefined {
  const text = squeeze(hint);
  for (let start = 0; start + HINT_CODE_CHARS <= answer.length; start += 1) {
    const window = answer.slice(start, start + HINT_CODE_CHARS);
    if (CODE_PUNCTUATION.test(window) && text.includes(window)) return window;
  }
  return undefined;
}

/**
 * Code a hint writes whatever the solution looks like: the head of a control statement, an
 * arrow function, a thrown error, a comparison between two operands, an object literal with
 * a key. Such fragments are often shorter than a solution line (`switch (status)`,
 * `attempt >= maxAttempts`), so the shared-code rule above cannot see them. A hint may name
 * things (`maxAttempts`, `"stale"`, `file.after`); how they combine is the exercise.
 */
const CODE_SYNTAX: readonly RegExp[] = [
  /\b(?:switch|if|for|while|catch)\s*\(/,
  /=>/,
  /\bthrow\s+new\b/,
  /[\w\])]\s*(?:===|!==|==|!=|>=|<=)\s*[\w"'([-]/,
  /\{\s*[\w$]+\s*:\s*[^{}]*\}/,
];

/** The first piece of code a hint writes out, by its syntax alone. */
export function codeSyntax(hint: string): string | undefined {
  for (const pattern of CODE_SYNTAX) {
    const found = pattern.exec(hint);
    if (found !== null) return found[0];
  }
  return undefined;
}

/**
 * Hints teach, in grades: the lesson's hints open with a direction that is not tied to one
 * test (what the exercise must get right, from its failure cases), so every test with a
 * hint of its own has two — direction, then mechanism; and no hint writes out the code of
 * the solution's exercise regions, nor a statement of any code (`codeSyntax`).
 */
export function checkHints(
  manifest: LessonManifest,
  solution: ReadonlyMap<string, string>,
): CheckLine {
  const problems: string[] = [];
  if (manifest.hints[0]?.test !== undefined) {
    problems.push("第一条提示挂在某个测试上：开头要有一条讲方向、不挂在测试上的提示");
  }
  const answers = [...regionLines(solution)].flatMap(([file, lines]) =>
    lines.flatMap((line) => {
      const answer = answerLine(line);
      return answer === undefined ? [] : [{ file, line: line.trim(), answer }];
    }),
  );
  manifest.hints.forEach((hint, index) => {
    for (const { file, line, answer } of answers) {
      const code = sharedCode(hint.text, answer);
      if (code === undefined) continue;
      problems.push(`第 ${index + 1} 条提示写出了答案的代码「${code}」（${file}：${line}）`);
      return;
    }
    const code = codeSyntax(hint.text);
    if (code !== undefined) {
      problems.push(`第 ${index + 1} 条提示写出了代码「${code}」：用话讲机制，不写语句`);
    }
  });
  return checkOf("提示：", problems, "提示先讲方向、再讲机制，没有一条写出答案的代码");
}
