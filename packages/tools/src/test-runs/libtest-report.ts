/**
 * Reads what Rust's test harness (libtest) prints under `cargo test`: per test binary a
 * `running N tests` block, `test name ... ok | FAILED | ignored` lines, a `---- name
 * stdout ----` section per failure, and `test result: FAILED. 1 passed; 2 failed; 1
 * ignored; 0 measured; 0 filtered out`. Unit tests, each integration test file and the
 * doc-tests are binaries of their own; their counts add up. Pure: text in, report out.
 */

import { clipMessage } from "./test-name.ts";
import type { TestCounts, TestFailure } from "./test-report.ts";

const RUNNING = /^running \d+ tests?$/;
const RESULT = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored\b/;
const FAILED_TEST = /^test (.+) \.\.\. FAILED$/;
const STDOUT_SECTION = /^---- (.+) stdout ----$/;

/**
 * Counts summed over every binary's `test result:` line (ignored tests are skipped), each
 * failure named by its path (`tests::adds`, what `cargo test <name>` selects; a doc-test
 * as `src/lib.rs - add (line 3)`), its message the panic it printed, without the
 * backtrace. Undefined without a result line, or when a binary started and printed none
 * (it crashed, or the output was cut).
 */
export function parseLibtestSummary(output: string): TestCounts | undefined {
  const lines = output.split(/\r?\n/);
  let started = 0;
  let finished = 0;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names: string[] = [];
  const messages = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (RUNNING.test(line)) started++;
    const result = RESULT.exec(line);
    if (result) {
      finished++;
      passed += Number(result[1]);
      failed += Number(result[2]);
      skipped += Number(result[3]);
      continue;
    }
    const failedTest = FAILED_TEST.exec(line);
    if (failedTest?.[1] !== undefined) names.push(failedTest[1]);
    const section = STDOUT_SECTION.exec(line);
    if (section?.[1] === undefined) continue;
    const body: string[] = [];
    while (i + 1 < lines.length && !isSectionEnd(lines[i + 1] ?? "")) body.push(lines[++i] ?? "");
    messages.set(section[1], withoutBacktrace(body));
  }
  if (finished === 0 || finished < started) return undefined;
  const failures: TestFailure[] = names.map((name) => ({
    name,
    message: clipMessage(messages.get(name) ?? ""),
  }));
  return { passed, failed, skipped, failures };
}

/** A failure's section ends at the next one, or at the `failures:` list of names. */
function isSectionEnd(line: string): boolean {
  return STDOUT_SECTION.test(line) || line === "failures:";
}

/** The panic and what the test printed; the frames of a backtrace say little to a reader. */
function withoutBacktrace(body: readonly string[]): string {
  const kept: string[] = [];
  let inBacktrace = false;
  for (const line of body) {
    if (line === "stack backtrace:") inBacktrace = true;
    else if (inBacktrace && !/^\s+(?:\d+:|at )/.test(line)) inBacktrace = false;
    if (!inBacktrace) kept.push(line);
  }
  return kept.join("\n").trim();
}
