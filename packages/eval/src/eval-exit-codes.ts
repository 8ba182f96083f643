/** Exit codes of `coding-agent eval` (docs/contracts.md §7). */
export const EVAL_EXIT_CODES = {
  /** The suite ran: failing tasks are results, not errors. */
  ok: 0,
  /** A regression against the baseline, or a harness error (a timeout, a crash). */
  regressionOrHarnessError: 1,
  usage: 2,
  cancelled: 130,
} as const;
