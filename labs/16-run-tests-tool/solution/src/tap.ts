import { readTapYamlBlock, type TestCounts, type TestFailure } from "@coding-agent/tools";

/** `# Subtest: <name>`: a test (or suite) begins; 4 spaces of indentation per level. */
const SUBTEST = /^( *)# Subtest: (.*)$/;
/** A test point: `ok 3 - name`, `not ok 2 - name`, maybe with a `# SKIP …` or `# TODO …` directive. */
const TEST_POINT = /^( *)(ok|not ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/;
/** The runner's own totals, printed once at the very end. */
const SUMMARY = /^# (pass|fail|cancelled|skipped|todo) (\d+)$/;

/**
 * Reads the TAP that `node --test --test-reporter=tap` prints into counts and named
 * failures. Every test point that is not a suite counts once: `ok` passed, `not ok`
 * failed, a SKIP or TODO directive skipped (whatever its ok). A failure is named after
 * its ancestors (`suite > test`) and carries the `error` of its YAML block.
 *
 * Undefined when the report cannot be trusted: no closing summary (the runner died, the
 * output was cut at the end), or counts that disagree with it (cut in the middle).
 */
export function readNodeTap(output: string): TestCounts | undefined {
  // #region exercise
  const lines = output.split(/\r?\n/);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  const summary = new Map<string, number>();
  // The names of the subtests being reported, by depth.
  const open: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const total = SUMMARY.exec(line);
    if (total?.[1] !== undefined) {
      summary.set(total[1], Number(total[2]));
      continue;
    }
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      const depth = (subtest[1] ?? "").length / 4;
      open.length = depth;
      open[depth] = subtest[2] ?? "";
      continue;
    }
    const point = TEST_POINT.exec(line);
    if (!point) continue;
    const indent = point[1] ?? "";
    const details = readTapYamlBlock(lines, i + 1, `${indent}  `);
    // A suite's point only sums up its tests, which were counted one by one.
    if (details.get("type") === "suite") continue;
    if (point[4] !== undefined) {
      skipped++;
    } else if (point[2] === "ok") {
      passed++;
    } else {
      failed++;
      const depth = indent.length / 4;
      failures.push({
        name: [...open.slice(0, depth), point[3] ?? ""].join(" > "),
        message: details.get("error") ?? "",
      });
    }
  }
  const pass = summary.get("pass");
  const fail = summary.get("fail");
  if (pass === undefined || fail === undefined) return undefined;
  const agrees =
    passed === pass &&
    failed === fail + (summary.get("cancelled") ?? 0) &&
    skipped === (summary.get("skipped") ?? 0) + (summary.get("todo") ?? 0);
  return agrees ? { passed, failed, skipped, failures } : undefined;
  // #endregion exercise
}
