import type { BaselineTask } from "./baseline.ts";
import { GRADER_NAMES } from "./graders.ts";
import { countTrials, suitePassAtK } from "./pass-at-k.ts";
import { PASS_RATE_TOLERANCE, type PassRateDrop, passRateDrops } from "./pass-rate-gate.ts";
import { HARNESS_ERROR_STATUS, type TaskResult } from "./run-task.ts";
import { trialLabel } from "./trial.ts";

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
  /** Ids of tasks that passed in the baseline and fail now (k > 1: whose pass rate fell too far). */
  readonly regressions: readonly string[];
  /** Only with `--trials k`, k > 1: each task ran k times, `tasks` has a row per trial. */
  readonly trials?: number;
  /** pass@1 and pass@k by the unbiased estimator, keyed by k (`{ "1": …, "5": … }`). */
  readonly passAt?: Readonly<Record<string, number>>;
  /** Per task: trials, passes, pass rate, and pass@1 / pass@k. */
  readonly taskPassRates?: readonly TaskPassRate[];
  /** Each regression's pass rates, before and now (k > 1). */
  readonly passRateDrops?: readonly PassRateDrop[];
}

/** One task's line of a report with trials. */
export interface TaskPassRate {
  readonly id: string;
  readonly trials: number;
  readonly passed: number;
  readonly passRate: number;
  readonly passAt: Readonly<Record<string, number>>;
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
  /**
   * How many times each task ran (`--trials`, default 1). Above 1 the report adds pass@1 and
   * pass@k, and the gate compares pass rates (`passRateDrops`) instead of single outcomes.
   */
  readonly trials?: number;
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
  const trials = options.trials ?? 1;
  const common = {
    suite: options.suite,
    passRate: results.length === 0 ? 0 : passed / results.length,
    passed,
    total: results.length,
    tasks: results,
    stops,
  };
  // One trial per task: the report exactly as it was before trials existed, byte for byte.
  if (trials === 1)
    return {
      ...common,
      regressions: baseline === undefined ? [] : [...regressionsOf(baseline, results)],
    };
  const counts = countTrials(results);
  const keys = [1, trials];
  const passAtOf = (of: typeof counts) =>
    Object.fromEntries(keys.map((k) => [String(k), suitePassAtK(of, k)]));
  const drops = baseline === undefined ? [] : passRateDrops(baseline, results);
  return {
    ...common,
    regressions: drops.map((drop) => drop.id),
    trials,
    passAt: passAtOf(counts),
    taskPassRates: counts.map((count) => ({
      id: count.id,
      trials: count.trials,
      passed: count.passed,
      passRate: count.passed / count.trials,
      passAt: passAtOf([count]),
    })),
    passRateDrops: drops,
  };
}

/** Whether the run had a harness error (a timeout, a crash): exit 1. */
export function hasHarnessError(report: EvalReport): boolean {
  return report.tasks.some((task) => task.status === HARNESS_ERROR_STATUS);
}

/** The terminal table: one row per task (per trial with k > 1), then the pass rate, the stops and any regression. */
export function formatTerminalReport(report: EvalReport): string {
  const trials = report.trials ?? 1;
  const labelOf = (task: TaskResult) => trialLabel(task.id, task.trial ?? 1, trials);
  const idWidth = Math.max(4, ...report.tasks.map((task) => labelOf(task).length));
  // Each CJK character is two columns wide: a header word of two characters pads two less.
  const header = `   ${"任务".padEnd(idWidth - 2)}  ${"状态".padEnd(22)}  ${"用时".padStart(5)}  未通过的评分`;
  const rows = report.tasks.map((task) => {
    const failing = GRADER_NAMES.filter((name) => !task.graders[name].pass);
    const seconds = `${(task.durationMs / 1000).toFixed(1)}s`;
    return `${task.passed ? "✓" : "✗"}  ${labelOf(task).padEnd(idWidth)}  ${`${task.status}/${task.code}`.padEnd(24)}  ${seconds.padStart(7)}  ${failing.length === 0 ? "—" : failing.join(", ")}`;
  });
  const percent = (report.passRate * 100).toFixed(0);
  const lines = [`任务集 ${report.suite}`, header, ...rows, ""];
  if (trials === 1) lines.push(`通过 ${report.passed}/${report.total}（${percent}%）`);
  else lines.push(...trialLines(report, trials, percent));
  lines.push(
    `停止原因：能力 ${report.stops.capability} · 安全 ${report.stops.safety} · 评测框架 ${report.stops.harness}`,
  );
  if (report.regressions.length > 0)
    lines.push(
      trials === 1
        ? `回归（基线中通过、这次失败）：${report.regressions.join(", ")}`
        : `回归（通过率比基线低超过 ${formatPercent(PASS_RATE_TOLERANCE)}）：${(report.passRateDrops ?? []).map(describeDrop).join(", ")}`,
    );
  return `${lines.join("\n")}\n`;
}

/** The summary of a report with trials: passes over all trials, each task, pass@1 and pass@k. */
function trialLines(report: EvalReport, trials: number, percent: string): string[] {
  const passAt = report.passAt ?? {};
  const idWidth = Math.max(4, ...(report.taskPassRates ?? []).map((task) => task.id.length));
  return [
    `每个任务 ${trials} 次试验：`,
    ...(report.taskPassRates ?? []).map(
      (task) =>
        `  ${task.id.padEnd(idWidth)}  通过 ${task.passed}/${task.trials}  pass@1 ${fixed(task.passAt["1"])}  pass@${trials} ${fixed(task.passAt[String(trials)])}`,
    ),
    "",
    `通过 ${report.passed}/${report.total} 次试验（${percent}%）`,
    `pass@1 ${fixed(passAt["1"])} · pass@${trials} ${fixed(passAt[String(trials)])}（无偏估计，每个任务的值取平均）`,
  ];
}

const fixed = (value: number | undefined): string => (value ?? 0).toFixed(3);

/** `fix-sum（100% → 40%）`. */
export function describeDrop(drop: PassRateDrop): string {
  return `${drop.id}（${formatPercent(drop.baseline)} → ${formatPercent(drop.now)}）`;
}

function formatPercent(rate: number): string {
  return `${(rate * 100).toFixed(0)}%`;
}
