/**
 * Reads the summary mocha's own reporters print at the end (spec, the default, and dot,
 * list, progress, min): `N passing`, `N pending`, `N failing`, then each failure with
 * its title path one title a line. Pure: text in, report out.
 */

import { clipMessage, joinTestName } from "./test-name.ts";
import type { TestCounts, TestFailure } from "./test-report.ts";

const COUNT = /^ {2}(\d+) (passing|pending|failing)\b/;
/** `  1) outer` opens a failure; its title path goes on one deeper line per title. */
const FAILURE_HEAD = /^ {2}(\d+)\) (.*)$/;

/**
 * Counts and failures from mocha's closing summary. The failure list comes after the
 * counts; a title path ends at the line ending in `:`, and the message is the lines
 * after it up to the next failure. Undefined without a `passing` count (mocha prints
 * one even when it is 0: the run did not reach its summary), or with fewer failures
 * listed than counted (the output was cut).
 */
export function parseMochaSummary(output: string): TestCounts | undefined {
  const lines = output.split(/\r?\n/);
  const counts = new Map<string, number>();
  let summaryAt = -1;
  for (let i = 0; i < lines.length; i++) {
    const count = COUNT.exec(lines[i] ?? "");
    if (count?.[2] === undefined) continue;
    // The last summary wins: a watch or a nested mocha may have printed one before.
    if (count[2] === "passing") counts.clear();
    counts.set(count[2], Number(count[1]));
    summaryAt = i;
  }
  const passed = counts.get("passing");
  if (passed === undefined) return undefined;

  const failures: TestFailure[] = [];
  for (let i = summaryAt + 1; i < lines.length; i++) {
    const head = FAILURE_HEAD.exec(lines[i] ?? "");
    if (!head) continue;
    const titles = [head[2] ?? ""];
    // The path's last title ends with ":"; each deeper title is on its own indented line.
    while (!(titles.at(-1) ?? "").endsWith(":") && /^ {5,}\S/.test(lines[i + 1] ?? "")) {
      i++;
      titles.push(lines[i] ?? "");
    }
    const last = titles.length - 1;
    titles[last] = (titles[last] ?? "").replace(/:$/, "");
    const message: string[] = [];
    while (i + 1 < lines.length && !FAILURE_HEAD.test(lines[i + 1] ?? "")) {
      i++;
      message.push((lines[i] ?? "").replace(/^ {6}/, ""));
    }
    failures.push({
      name: joinTestName(titles),
      message: clipMessage(message.join("\n").trim()),
    });
  }
  const failed = counts.get("failing") ?? 0;
  // Each failure is listed after the counts: fewer means the output was cut.
  if (failures.length < failed) return undefined;
  return {
    passed,
    failed,
    skipped: counts.get("pending") ?? 0,
    failures,
  };
}
