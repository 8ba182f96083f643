/**
 * Reads any TAP producer's report (TAP 13 and 14): tape, node-tap (`tap --reporter=tap`),
 * ava (`--tap`), mocha (`--reporter tap`), node (`--test-reporter=tap`, which
 * `parseNodeTap` reads by node's own summary instead). Pure: text in, report out.
 */

import { clipMessage, joinTestName, unescapeTapName } from "./test-name.ts";
import { readTapYamlBlock, type TestCounts, type TestFailure } from "./test-report.ts";

/** `ok 3 - name # SKIP why`: indent, ok or not, description, directive. */
const TEST_POINT = /^( *)(not ok|ok)\b(?: +\d+)?(?: +-)?(?: +(.*?))?(?: +# *(SKIP|TODO)\b.*)?$/i;
const SUBTEST = /^( *)# Subtest: ?(.*)$/;
const PLAN = /^1\.\.(\d+)\b/;
const BAIL_OUT = /^( *)Bail out!/;
/** Comments a producer writes for itself (counts, timings), never a test's heading. */
const BOOKKEEPING =
  /^# ?(tests|pass|fail|skip|skipped|todo|cancelled|duration_ms|ok|not ok|time=|\{|No coverage|Subtest)\b/i;

/**
 * Counts and failures of a TAP report, counting leaf test points: a point that sums
 * up its subtests (node-tap's files, `t.test` groups, node's suites) is not a test.
 * A failure is named by its `# Subtest:` ancestors, or for tape (which has none) by the
 * `# heading` its assertion ran under, then its own description, joined by " > ".
 * Undefined when the report is incomplete: no top-level plan, fewer top-level points
 * than it announced, or a bail out.
 */
export function parseTap(output: string): TestCounts | undefined {
  const lines = output.split(/\r?\n/);
  if (!lines.some((line) => /^TAP version \d+/.test(line) || TEST_POINT.test(line)))
    return undefined;
  const headingsAreNames = !lines.some((line) => SUBTEST.test(line));
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  // Subtest names being reported, and whether a deeper point was seen since the last
  // point at each depth (then the point at that depth is a parent).
  const open: string[] = [];
  const hasChildren: boolean[] = [];
  let heading = "";
  let plan: number | undefined;
  let topLevelPoints = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (BAIL_OUT.test(line)) return undefined;
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      const depth = Math.floor((subtest[1]?.length ?? 0) / 4);
      open.length = depth;
      open[depth] = subtest[2] ?? "";
      continue;
    }
    const planned = PLAN.exec(line);
    if (planned) {
      plan = Number(planned[1]);
      continue;
    }
    if (headingsAreNames && line.startsWith("#") && !BOOKKEEPING.test(line)) {
      heading = line.slice(1).trim();
      continue;
    }
    const point = TEST_POINT.exec(line);
    if (!point) continue;
    const indent = point[1] ?? "";
    const depth = Math.floor(indent.length / 4);
    if (depth === 0) topLevelPoints++;
    const isParent = hasChildren[depth + 1] === true;
    hasChildren.length = depth + 1;
    hasChildren[depth] = true;
    if (isParent) continue;
    if (point[4] !== undefined) {
      skipped++;
      continue;
    }
    if (point[2]?.toLowerCase() === "ok") {
      passed++;
      continue;
    }
    failed++;
    const own = describe(point[3] ?? "");
    const ancestors = headingsAreNames ? [heading] : open.slice(0, depth);
    failures.push({
      name: joinTestName([...ancestors, own]),
      message: clipMessage(readMessage(lines, i + 1, `${indent}  `)),
    });
  }
  // A plan at the top announces how many points follow (or came before): fewer means
  // the output was cut or the producer died.
  if (plan === undefined || topLevelPoints < plan) return undefined;
  return { passed, failed, skipped, failures };
}

/** A point's description without producer suffixes (node-tap's `# time=…`) and TAP escapes. */
function describe(raw: string): string {
  return unescapeTapName(raw.replace(/ +# time=\S*$/, ""));
}

/**
 * What a failed point says about itself: its YAML block's message (node's and node-tap's
 * `error` / `message`, tape's `operator` with `expected` and `actual`, node-tap's `diff`),
 * or the indented lines that follow it (mocha's TAP).
 */
function readMessage(lines: readonly string[], from: number, indent: string): string {
  // Keys sit under the fence (node) or two spaces deeper (tape, ava, node-tap's nested blocks).
  const first = lines[from + 1] ?? "";
  const keyIndent = /^ */.exec(first)?.[0] ?? indent;
  const block = readTapYamlBlock(lines, from, indent, keyIndent);
  if (block.size > 0) {
    const said = [block.get("error"), block.get("message")].find(
      (text) => text !== undefined && text !== "",
    );
    const comparison =
      block.has("expected") || block.has("actual")
        ? `expected: ${(block.get("expected") ?? "").trim()}\nactual: ${(block.get("actual") ?? "").trim()}`
        : undefined;
    const parts = [said, comparison, block.get("diff")].filter((part) => part !== undefined);
    // Nothing said in the usual keys (ava's details, node-tap's source excerpt): the block itself.
    return parts.length > 0 ? parts.join("\n") : yamlText(lines, from, indent);
  }
  const body: string[] = [];
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!line.startsWith(indent) || TEST_POINT.test(line)) break;
    body.push(line.slice(indent.length));
  }
  return body.join("\n").trim();
}

/** The lines of the YAML block starting at `lines[from]`, without its fences and indent. */
function yamlText(lines: readonly string[], from: number, indent: string): string {
  const body: string[] = [];
  for (let i = from + 1; i < lines.length && lines[i] !== `${indent}...`; i++)
    body.push((lines[i] ?? "").slice(indent.length + 2));
  return body.join("\n").trim();
}
