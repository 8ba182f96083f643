/**
 * Turns a test runner's machine-readable output into counts and failures: TAP from
 * `node --test --test-reporter=tap`, and the JSON report of vitest (`--reporter=json`)
 * and jest (`--json`), which share one shape. Pure: text in, report out. Other TAP
 * producers: `tap-report.ts`; mocha's own summary: `mocha-report.ts`.
 */
import type { TestReportKind } from "./plan-test-command.ts";
import { clipMessage, joinTestName, unescapeTapName } from "./test-name.ts";

/** One failed test: its full name (ancestors joined by " > ") and the runner's message. */
export interface TestFailure {
  readonly name: string;
  readonly message: string;
}

/** What a report says. `skipped` includes todo tests; `failed` includes cancelled ones. */
export interface TestCounts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly failures: readonly TestFailure[];
}

/**
 * Reads node's TAP: counts from its closing `# pass`/`# fail`/… comments, failures
 * from every `not ok` that is not a suite and not a todo. Undefined when the output
 * holds no complete summary (the runner died, or the output was cut).
 */
export function parseNodeTap(output: string): TestCounts | undefined {
  const lines = output.split(/\r?\n/);
  const summary = new Map<string, number>();
  for (const line of lines) {
    const match = /^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) summary.set(match[1], Number(match[2]));
  }
  const pass = summary.get("pass");
  const fail = summary.get("fail");
  if (pass === undefined || fail === undefined) return undefined;

  const failures: TestFailure[] = [];
  // Names of the subtests being reported, by indentation level (4 spaces per level).
  const open: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      const depth = (subtest[1]?.length ?? 0) / 4;
      open.length = depth;
      open[depth] = subtest[2] ?? "";
      continue;
    }
    const result = /^( *)not ok \d+ - (.*?)(?: # (TODO|SKIP)\b.*)?$/.exec(line);
    if (!result || result[3] !== undefined) continue;
    const indent = result[1] ?? "";
    const block = readTapYamlBlock(lines, i + 1, `${indent}  `);
    if (block.get("type") === "suite") continue;
    const depth = indent.length / 4;
    const name = joinTestName([...open.slice(0, depth), result[2] ?? ""].map(unescapeTapName));
    failures.push({ name, message: clipMessage(block.get("error") ?? "") });
  }
  return {
    passed: pass,
    failed: fail + (summary.get("cancelled") ?? 0),
    skipped: (summary.get("skipped") ?? 0) + (summary.get("todo") ?? 0),
    failures,
  };
}

/**
 * The top-level keys of the YAML block (`---` … `...`) that node's TAP puts under a
 * test point, starting at `lines[from]` with `indent`: plain and quoted scalars, and
 * `|-` block scalars. Empty when no block starts there. Keys sit at `indent` in node's
 * TAP; tape and ava indent them two more (`keyIndent`).
 */
export function readTapYamlBlock(
  lines: readonly string[],
  from: number,
  indent: string,
  keyIndent = indent,
): Map<string, string> {
  const values = new Map<string, string>();
  if (lines[from] !== `${indent}---`) return values;
  const key = new RegExp(`^${keyIndent}([A-Za-z_]+): ?(.*)$`);
  for (let i = from + 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === `${indent}...`) break;
    const entry = key.exec(line);
    if (!entry?.[1]) continue;
    const raw = entry[2] ?? "";
    if (raw === "|-" || raw === "|" || raw === ">-") {
      const body: string[] = [];
      const deeper = `${keyIndent}  `;
      while (
        i + 1 < lines.length &&
        ((lines[i + 1] ?? "").startsWith(deeper) || lines[i + 1] === "")
      ) {
        i++;
        body.push((lines[i] ?? "").slice(deeper.length));
      }
      values.set(entry[1], body.join("\n").trimEnd());
    } else {
      values.set(entry[1], unquote(raw));
    }
  }
  return values;
}

function unquote(raw: string): string {
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2)
    return raw.slice(1, -1).replaceAll("''", "'");
  if (raw.startsWith('"') && raw.endsWith('"')) {
    try {
      return JSON.parse(raw) as string;
    } catch {
      return raw.slice(1, -1);
    }
  }
  return raw;
}

interface JestLikeReport {
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numPendingTests?: number;
  readonly numTodoTests?: number;
  readonly testResults?: ReadonlyArray<{
    readonly name?: string;
    readonly message?: string;
    readonly status?: string;
    readonly assertionResults?: ReadonlyArray<{
      readonly ancestorTitles?: readonly string[];
      readonly fullName?: string;
      readonly title?: string;
      readonly status?: string;
      readonly failureMessages?: readonly string[];
    }>;
  }>;
}

/**
 * Reads the JSON report vitest (`--reporter=json`) and jest (`--json`) print: the
 * last line of the output that parses as a report object. A file that failed before
 * any test ran (a syntax error, a failed import) is a failure named after the file.
 */
export function parseJestLikeJson(output: string): TestCounts | undefined {
  const report = findReport(output);
  if (report === undefined) return undefined;
  const failures: TestFailure[] = [];
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failedTests) {
      failures.push({
        // `fullName` joins ancestors with spaces (vitest 1 adds a leading one): the
        // titles themselves give the one " > " shape.
        name:
          test.title === undefined
            ? joinTestName([test.fullName ?? ""])
            : joinTestName([...(test.ancestorTitles ?? []), test.title]),
        message: clipMessage((test.failureMessages ?? []).join("\n")),
      });
    }
    if (file.status === "failed" && failedTests.length === 0) {
      failures.push({
        name: joinTestName([file.name ?? ""]),
        message: clipMessage(file.message ?? ""),
      });
    }
  }
  // Counted from each test's status when the report lists them: vitest 1 counts a
  // skipped test as passed in numPassedTests.
  const tests = (report.testResults ?? []).flatMap((file) => file.assertionResults ?? []);
  const withStatus = (statuses: ReadonlySet<string>) =>
    tests.filter((test) => statuses.has(test.status ?? "")).length;
  const listed = tests.length > 0;
  return {
    passed: listed ? withStatus(PASSED_STATUSES) : report.numPassedTests,
    // A file that failed to load counts once: its tests never ran to be counted.
    failed: Math.max(listed ? withStatus(FAILED_STATUSES) : report.numFailedTests, failures.length),
    skipped: listed
      ? withStatus(SKIPPED_STATUSES)
      : (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    failures,
  };
}

/** What jest and vitest call a test that passed, failed, or did not run. */
const PASSED_STATUSES: ReadonlySet<string> = new Set(["passed"]);
const FAILED_STATUSES: ReadonlySet<string> = new Set(["failed"]);
const SKIPPED_STATUSES: ReadonlySet<string> = new Set(["pending", "skipped", "todo", "disabled"]);

function findReport(output: string): JestLikeReport | undefined {
  const lines = output.split(/\r?\n/).reverse();
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{") || !trimmed.includes('"numPassedTests"')) continue;
    try {
      const parsed = JSON.parse(trimmed) as Partial<JestLikeReport>;
      if (typeof parsed.numPassedTests === "number" && typeof parsed.numFailedTests === "number")
        return parsed as JestLikeReport;
    } catch {
      // Not the report (or a cut one): keep looking.
    }
  }
  return undefined;
}

/** What `run_tests` returns (docs/contracts.md §6), with where the numbers came from. */
export interface RunTestsResult {
  readonly passed: number | null;
  readonly failed: number | null;
  readonly skipped: number | null;
  readonly failures: readonly TestFailure[];
  readonly exitCode: number | null;
  readonly report: TestReportKind;
  /** The command that ran (with the reporter flag added, if one was). */
  readonly command: string;
  /** Why there are no counts, in Chinese, when `report` is `exit_code`. */
  readonly note?: string;
  /** The end of the output when there are no counts, so the model still sees what happened. */
  readonly output?: string;
  /** Failures counted but not listed, to fit the observation budget (the first ones are listed). */
  readonly omittedFailures?: number;
  /** The artifact holding the whole output, when the result had to be cut to the budget. */
  readonly artifact?: string;
}
