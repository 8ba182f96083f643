/**
 * Reads `go test -json` (test2json): one JSON event a line, `{ Action, Package, Test?,
 * Output? }`, where `run` starts a test, `output` carries its lines, and `pass` / `fail` /
 * `skip` end it (or, without `Test`, the package). Pure: text in, report out.
 */

import { z } from "zod";
import { clipMessage, joinTestName } from "./test-name.ts";
import type { TestCounts, TestFailure } from "./test-report.ts";

const GoTestEvent = z.object({
  Action: z.string(),
  Package: z.string().optional(),
  Test: z.string().optional(),
  Output: z.string().optional(),
});

const ENDS = new Set(["pass", "fail", "skip"]);
/** Lines test2json repeats from the framework itself, not what the test said. */
const FRAMEWORK_LINE = /^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)|--- (?:PASS|FAIL|SKIP):)/;

/**
 * Counts over leaf tests (a test with subtests `TestX/case` sums them up and is not
 * counted itself), each failure named `package > TestX/case` (what `go test -run`
 * selects), its message the lines the test printed. A package that failed with no test
 * failing (a build error, a panic in `TestMain`) is one failure named after the package.
 * A test left running when its package failed (a panic, a timeout) failed. Undefined when
 * there are no events, or a package never ended (the run was cut).
 */
export function parseGoTestJson(output: string): TestCounts | undefined {
  const tests = new Map<string, { pkg: string; test: string; end?: string; output: string[] }>();
  const packages = new Map<string, { end?: string; output: string[] }>();
  for (const line of output.split(/\r?\n/)) {
    if (!line.startsWith("{")) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = GoTestEvent.safeParse(json);
    if (!parsed.success) continue;
    const event = parsed.data;
    const pkg = event.Package ?? "";
    const owner = packages.get(pkg) ?? { output: [] };
    packages.set(pkg, owner);
    if (event.Test === undefined) {
      if (ENDS.has(event.Action)) owner.end = event.Action;
      // Go 1.24+ reports a build failure as `build-output` lines.
      if (event.Output !== undefined) owner.output.push(event.Output);
      continue;
    }
    const key = `${pkg}\u0000${event.Test}`;
    const test = tests.get(key) ?? { pkg, test: event.Test, output: [] };
    tests.set(key, test);
    if (ENDS.has(event.Action)) test.end = event.Action;
    if (event.Action === "output" && event.Output !== undefined) test.output.push(event.Output);
  }
  if (packages.size === 0 || [...packages.values()].some((pkg) => pkg.end === undefined))
    return undefined;

  const names = new Set([...tests.values()].map((test) => `${test.pkg}\u0000${test.test}`));
  const isParent = (pkg: string, test: string) =>
    [...names].some((other) => other.startsWith(`${pkg}\u0000${test}/`));
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  const failedPackages = new Set<string>();
  for (const test of tests.values()) {
    if (isParent(test.pkg, test.test)) continue;
    const end = test.end ?? (packages.get(test.pkg)?.end === "fail" ? "fail" : undefined);
    if (end === "pass") passed++;
    else if (end === "skip") skipped++;
    else if (end === "fail") {
      failed++;
      failedPackages.add(test.pkg);
      failures.push({
        name: joinTestName([test.pkg, test.test]),
        message: clipMessage(said(test.output)),
      });
    }
  }
  for (const [pkg, state] of packages) {
    if (state.end !== "fail" || failedPackages.has(pkg)) continue;
    failed++;
    failures.push({ name: joinTestName([pkg]), message: clipMessage(said(state.output)) });
  }
  return { passed, failed, skipped, failures };
}

/** What a test printed, without the framework's own `=== RUN` / `--- FAIL` lines. */
function said(output: readonly string[]): string {
  return output
    .join("")
    .split("\n")
    .filter((line) => !FRAMEWORK_LINE.test(line))
    .map((line) => line.replace(/^ {4}/, ""))
    .join("\n")
    .trim();
}
