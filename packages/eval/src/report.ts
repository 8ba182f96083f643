import type { BaselineTask } from "./baseline.ts";
import { GRADER_NAMES } from "./graders.ts";
import { HARNESS_ERROR_STATUS, type TaskResult } from "./run-task.ts";

/** Why a task that did not complete stopped, as a report groups it (docs/contracts.md §7). */
export type StopKind = "capability" | "safety" | "harness";

/** The `--json` report (docs/contracts.md §7), also the file `--baseline` reads and `--update-baseline` writes. */
export interface EvalReport {
  readonly suite: string;
  /** passed / total, between 0 and 1. */
  readonly passRate: number;
  readonly passed: number;
  readonly total: number;
  readonly tasks: readonly TaskResult[];
  /** How many tasks stopped for each kind of reason. */
  readonly stops: {
    readonly capability: number;
    readonly safety: number;
    readonly harness: number;
  };
  /** Ids of tasks that passed in the baseline and fail now. */
  readonly regressions: readonly string[];
}

/**
 * The kind of a task's stop: capability (failed, budget_exceeded, finish_rejected), safety
 * (blocked, permission denied), harness (timeout, crash, cancelled); undefined for a run
 * that completed, whatever its graders say.
 */
export function stopKindOf(result: Pick<TaskResult, "status" | "code">): StopKind | undefined {
  if (result.status === "completed") return undefined;
  if (result.status === "blocked" || result.code === "permission_denied") return "safety";
  if (result.status === "failed" || result.status === "budget_exceeded") return "capability";
  // `error` (timeout, crash) and `cancelled`: the harness did not get a verdict.
  return "harness";
}

/** How a run's results are compared with a baseline: the ids of the regressions, in run order. */
export type FindRegressions = (
  baseline: readonly BaselineTask[],
  results: readonly TaskResult[],
) => readonly string[];

/**
 * The tasks that passed in the baseline and fail now, in the order of `results` (the suite's).
 * Matched by id, never by position; a harness error (timeout, crash) has `passed: false`, so it
 * fails; a task new since the baseline, or one that failed there too, is no regression.
 */
export function findRegressions(
  baseline: readonly BaselineTask[],
  results: readonly TaskResult[],
): string[] {
  const passedBefore = new Set(baseline.filter((task) => task.passed).map((task) => task.id));
  return results
    .filter((result) => !result.passed && passedBefore.has(result.id))
    .map((result) => result.id);
}

/** The report of a run; `baseline` holds the tasks of the baseline file, if any. */
export function buildReport(options: {
  readonly suite: string;
  readonly results: readonly TaskResult[];
  readonly baseline?: readonly BaselineTask[];
  /** Replaces {@link findRegressions} (lesson 35 wires the learner's function in here). */
  readonly findRegressions?: FindRegressions;
  /** How a stop is classified; `stopKindOf` unless a lesson brings its own. */
  readonly classify?: (result: TaskResult) => StopKind | undefined;
}): EvalReport {
  const { results } = options;
  const classify = options.classify ?? stopKindOf;
  const passed = results.filter((result) => result.passed).length;
  const stops = { capability: 0, safety: 0, harness: 0 };
  for (const result of results) {
    const kind = classify(result);
    if (kind !== undefined) stops[kind] += 1;
  }
  const baseline = options.baseline;
  const regressionsOf = options.findRegressions ?? findRegressions;
  return {
    suite: options.suite,
    passRate: results.length === 0 ? 0 : passed / results.length,
    passed,
    total: results.length,
    tasks: results,
    stops,
    regressions: baseline === undefined ? [] : [...regressionsOf(baseline, results)],
  };
}

/** Whether the run had a harness error (a timeout, a crash): exit 1. */
export function hasHarnessError(report: EvalReport): boolean {
  return report.tasks.some((task) => task.status === HARNESS_ERROR_STATUS);
}

/** The terminal table: one row per task, then the pass rate, the stops and any regression. */
export function formatTerminalReport(report: EvalReport): string {
  const idWidth = Math.max(4, ...report.tasks.map((task) => task.id.length));
  // Each CJK character is two columns wide: a header word of two characters pads two less.
  const header = `   ${"任务".padEnd(idWidth - 2)}  ${"状态".padEnd(22)}  ${"用时".padStart(5)}  未通过的评分`;
  const rows = report.tasks.map((task) => {
    const failing = GRADER_NAMES.filter((name) => !task.graders[name].pass);
    const seconds = `${(task.durationMs / 1000).toFixed(1)}s`;
    return `${task.passed ? "✓" : "✗"}  ${task.id.padEnd(idWidth)}  ${`${task.status}/${task.code}`.padEnd(24)}  ${seconds.padStart(7)}  ${failing.length === 0 ? "—" : failing.join(", ")}`;
  });
  const percent = (report.passRate * 100).toFixed(0);
  const lines = [
    `任务集 ${report.suite}`,
    header,
    ...rows,
    "",
    `通过 ${report.passed}/${report.total}（${percent}%）`,
    `停止原因：能力 ${report.stops.capability} · 安全 ${report.stops.safety} · 评测框架 ${report.stops.harness}`,
  ];
  if (report.regressions.length > 0)
    lines.push(`回归（基线中通过、这次失败）：${report.regressions.join(", ")}`);
  return `${lines.join("\n")}\n`;
}
