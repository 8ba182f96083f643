/**
 * Reads what `python -m unittest` prints (on stderr): `Ran 6 tests in 0.002s`, then `OK`,
 * `OK (skipped=1)` or `FAILED (failures=2, errors=1, skipped=1, expected failures=1)`, and
 * before them a block per failure headed `FAIL: test_x (module.Class.test_x)`. Pure: text
 * in, report out.
 */

import { clipMessage } from "./test-name.ts";
import type { TestCounts, TestFailure } from "./test-report.ts";

const RAN = /^Ran (\d+) tests? in [\d.]+s$/;
const VERDICT = /^(OK|FAILED|NO TESTS RAN)(?: \((.*)\))?$/;
const RULE = /^(?:=|-){20,}$/;
/** `FAIL: test_x (module.Class.test_x)`; before Python 3.11 `(module.Class)`; a subtest adds ` (i=1)`. */
const FAILURE_HEAD = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([^)]*)\)(.*)$/;

/**
 * Counts from the closing `Ran N tests` and its verdict: failures, errors and unexpected
 * successes are failed, skips and expected failures skipped, the rest passed (a test whose
 * subtests failed twice is counted twice, as unittest counts it). Each failure is named by
 * its dotted id (what `python -m unittest <id>` runs again), its message the traceback.
 * Undefined without a `Ran` line followed by a verdict: the run did not finish.
 */
export function parseUnittestSummary(output: string): TestCounts | undefined {
  const lines = output.split(/\r?\n/);
  let ran: number | undefined;
  let verdict: RegExpExecArray | undefined;
  for (let i = 0; i < lines.length; i++) {
    const count = RAN.exec(lines[i] ?? "");
    if (count === null) continue;
    // The verdict follows after one blank line; the last summary wins.
    const next = lines.slice(i + 1, i + 3).find((line) => line.trim() !== "") ?? "";
    const found = VERDICT.exec(next.trim());
    if (found === null) continue;
    ran = Number(count[1]);
    verdict = found;
  }
  if (ran === undefined || verdict === undefined) return undefined;
  const counts = new Map<string, number>();
  for (const part of (verdict[2] ?? "").split(", ")) {
    const [key, value] = part.split("=");
    if (key !== undefined && value !== undefined) counts.set(key, Number(value));
  }
  const count = (key: string) => counts.get(key) ?? 0;
  const failed = count("failures") + count("errors") + count("unexpected successes");
  const skipped = count("skipped") + count("expected failures");
  return {
    passed: Math.max(0, ran - failed - skipped),
    failed,
    skipped,
    failures: readFailures(lines),
  };
}

/** Each `FAIL:` / `ERROR:` block: the header's id, the traceback under its rule. */
function readFailures(lines: readonly string[]): TestFailure[] {
  const failures: TestFailure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = FAILURE_HEAD.exec(lines[i] ?? "");
    if (head === null || !RULE.test(lines[i - 1] ?? "")) continue;
    const method = head[2] ?? "";
    const where = head[3] ?? "";
    // Python 3.11 writes the whole id in the parentheses, older ones the class only.
    const id = where.endsWith(`.${method}`) ? where : `${where}.${method}`;
    const body: string[] = [];
    let j = i + 1;
    if (RULE.test(lines[j] ?? "")) j++;
    for (; j < lines.length && !RULE.test(lines[j] ?? ""); j++) body.push(lines[j] ?? "");
    failures.push({ name: `${id}${head[4] ?? ""}`, message: clipMessage(body.join("\n").trim()) });
  }
  return failures;
}
