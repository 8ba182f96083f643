import type { BaselineTask } from "./baseline.ts";
import { countTrials } from "./pass-at-k.ts";

/**
 * How far a task's pass rate may fall below the baseline's before the gate calls it a
 * regression, when each task runs more than once (`--trials k`, k > 1). With k trials a rate
 * moves in steps of 1/k; one unlucky trial out of five (a 20-point drop) is noise, two are not.
 */
export const PASS_RATE_TOLERANCE = 0.2;

/** Rates are fractions with different denominators: a drop equal to the tolerance is not more. */
const EPSILON = 1e-9;

/** A task whose pass rate fell too far: its rate in the baseline and now. */
export interface PassRateDrop {
  readonly id: string;
  readonly baseline: number;
  readonly now: number;
}

/**
 * The gate with trials: each task's pass rate now against its rate in the baseline (a
 * baseline row per trial, or one row of a single-trial run: rate 0 or 1). A task whose rate
 * fell by more than `tolerance` regressed; matched by id, in the order of `results`; a task
 * the baseline does not have is no regression.
 */
export function passRateDrops(
  baseline: readonly BaselineTask[],
  results: readonly { readonly id: string; readonly passed: boolean }[],
  tolerance: number = PASS_RATE_TOLERANCE,
): PassRateDrop[] {
  const before = new Map(countTrials(baseline).map((task) => [task.id, task.passed / task.trials]));
  return countTrials(results).flatMap((task) => {
    const rate = before.get(task.id);
    if (rate === undefined) return [];
    const now = task.passed / task.trials;
    return rate - now > tolerance + EPSILON ? [{ id: task.id, baseline: rate, now }] : [];
  });
}
