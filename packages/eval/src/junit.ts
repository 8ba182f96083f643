import { GRADER_NAMES } from "./graders.ts";
import type { EvalReport } from "./report.ts";
import { HARNESS_ERROR_STATUS } from "./run-task.ts";
import { trialLabel } from "./trial.ts";

/**
 * The report as JUnit XML: one `<testcase>` per task, `<failure>` for a task that ran and
 * failed a grader, `<error>` for a harness error (timeout, crash). CI servers read it. With
 * `--trials k` (k > 1) a `<testcase>` per trial (`fix-sum #2`), and the suite's pass@1 and
 * pass@k as `<properties>`.
 */
export function renderJunit(report: EvalReport): string {
  const failures = report.tasks.filter(
    (task) => !task.passed && task.status !== HARNESS_ERROR_STATUS,
  ).length;
  const errors = report.tasks.filter((task) => task.status === HARNESS_ERROR_STATUS).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const totalMs = report.tasks.reduce((sum, task) => sum + task.durationMs, 0);
  const cases = report.tasks.map((task) => {
    const name = trialLabel(task.id, task.trial ?? 1, report.trials ?? 1);
    const open = `    <testcase name="${xml(name)}" classname="${xml(report.suite)}" time="${seconds(task.durationMs)}"`;
    if (task.passed) return `${open}/>`;
    const failed = GRADER_NAMES.filter((name) => !task.graders[name].pass);
    const body = failed.map((name) => `${name}: ${task.graders[name].detail}`).join("\n");
    const element = task.status === HARNESS_ERROR_STATUS ? "error" : "failure";
    const message = `${task.status}/${task.code}${task.error === undefined ? "" : `: ${task.error}`}`;
    return `${open}>\n      <${element} message="${xml(message)}" type="${xml(task.code)}">${xml(body)}</${element}>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="coding-agent eval" tests="${report.total}" failures="${failures}" errors="${errors}" time="${seconds(totalMs)}">`,
    `  <testsuite name="${xml(report.suite)}" tests="${report.total}" failures="${failures}" errors="${errors}" time="${seconds(totalMs)}">`,
    ...passAtProperties(report),
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** pass@1 and pass@k as JUnit properties; none for a single-trial run (its XML stays as it was). */
function passAtProperties(report: EvalReport): string[] {
  if (report.trials === undefined || report.passAt === undefined) return [];
  return [
    "    <properties>",
    `      <property name="trials" value="${report.trials}"/>`,
    ...Object.entries(report.passAt).map(
      ([k, value]) => `      <property name="pass@${xml(k)}" value="${value}"/>`,
    ),
    "    </properties>",
  ];
}

/**
 * Text as XML character data or an attribute value: the five special characters escaped,
 * and the characters XML 1.0 cannot hold at all (NUL, most control characters, lone
 * surrogates) replaced by U+FFFD, so a test output cannot break the file.
 */
export function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}
