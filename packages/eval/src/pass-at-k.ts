/**
 * pass@k with the unbiased estimator (Chen et al. 2021, "Evaluating Large Language Models
 * Trained on Code"): for a task tried `n` times with `c` passes, the chance that at least one
 * of `k` trials drawn without replacement passes, 1 − C(n−c, k) / C(n, k). A suite's pass@k
 * is the mean over its tasks.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k))
    throw new RangeError(`passAtK needs integers, got n=${n} c=${c} k=${k}`);
  if (n < 1 || c < 0 || c > n || k < 1 || k > n)
    throw new RangeError(`passAtK needs 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n} c=${c} k=${k}`);
  // Fewer failures than draws: every draw of k holds a pass.
  if (n - c < k) return 1;
  // The same value as the product below, without its rounding (0.2, not 0.19999999999999996).
  if (k === 1) return c / n;
  // C(n−c, k) / C(n, k) as a product, so no factorial overflows: ∏_{i=n−c+1}^{n} (1 − k/i).
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i += 1) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** One task's outcomes: how many trials it had and how many passed. */
export interface TrialCount {
  readonly id: string;
  readonly trials: number;
  readonly passed: number;
}

/** Counts each task's trials and passes, tasks in the order they first appear. */
export function countTrials(
  results: readonly { readonly id: string; readonly passed: boolean }[],
): TrialCount[] {
  const counts = new Map<string, { trials: number; passed: number }>();
  for (const result of results) {
    const count = counts.get(result.id) ?? { trials: 0, passed: 0 };
    count.trials += 1;
    if (result.passed) count.passed += 1;
    counts.set(result.id, count);
  }
  return [...counts].map(([id, count]) => ({ id, ...count }));
}

/** The suite's pass@k: each task's estimate, averaged; 0 for an empty suite. */
export function suitePassAtK(counts: readonly TrialCount[], k: number): number {
  if (counts.length === 0) return 0;
  const sum = counts.reduce((total, task) => total + passAtK(task.trials, task.passed, k), 0);
  return sum / counts.length;
}
