/**
 * How a run ended. Every run ends in exactly one of these; the CLI turns it into an exit
 * code, a trace records it, a later recovery layer decides from it whether to retry.
 */
export type RunStatus = "completed" | "failed" | "budget_exceeded" | "blocked" | "cancelled";

/** What the runtime hands back to the CLI when a run is over. */
export interface RunResult {
  readonly status: RunStatus;
  /** One line a person can read: what was done, or why the run stopped. */
  readonly summary: string;
  /** Model steps the run used. */
  readonly steps: number;
}
