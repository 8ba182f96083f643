import { readTapYamlBlock, type TestCounts, type TestFailure } from "@coding-agent/tools";

/** `# Subtest: <名字>`：一个测试（或套件）开始；每一层缩进 4 个空格。 */
const SUBTEST = /^( *)# Subtest: (.*)$/;
/** 测试点：`ok 3 - name`、`not ok 2 - name`，可能带有 `# SKIP …` 或 `# TODO …` 指令。 */
const TEST_POINT = /^( *)(ok|not ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/;
/** 测试运行器自己的汇总，在最后打印一次。 */
const SUMMARY = /^# (pass|fail|cancelled|skipped|todo) (\d+)$/;

/**
 * 把 `node --test --test-reporter=tap` 打印的 TAP 读成计数和带名字的失败。不是套件的测试点各算一次：
 * `ok` 是通过，`not ok` 是失败，带 SKIP 或 TODO 指令的是跳过（不管 ok 与否）。失败以它的祖先命名（
 * `suite > test`），并带着它 YAML 块里的 `error`。
 * 报告不可信时为 undefined：没有结尾的汇总（运行器死了，输出在末尾被截断），或者计数与汇总对不上（
 * 中间被截断）。
 */
export function readNodeTap(output: string): TestCounts | undefined {
  // #region exercise
  const lines = output.split(/\r?\n/);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: TestFailure[] = [];
  const summary = new Map<string, number>();
  // 正在报告的各层子测试的名字，按深度。
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
    // 套件的测试点只是汇总它的测试，而那些测试已经一个个计过了。
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
