import { HARNESS_ERROR_STATUS, type TaskResult } from "./run-task.ts";

/**
 * A run read as an interchange trajectory (the CLI's ATIF, checked against its field list),
 * or why it could not be. The eval package only stores it: what a trajectory holds is the
 * CLI's business.
 */
export type TrajectoryRead =
  | { readonly ok: true; readonly trajectory: unknown }
  | { readonly ok: false; readonly message: string };

/**
 * How the harness saw a run end when it did not end on its own: killed at its trial's time
 * limit (`timeout`), or gone without printing a result (`crash`). Its trajectory is what its
 * records hold up to then, and says it is incomplete.
 */
export type RunCut = "timeout" | "crash";

/**
 * Reads the trajectory of a run by its id, where the run happened: the producer's machine
 * for a local job, the worker's for a trial taken from the queue. `cut` says the run was
 * stopped or died, so the reader marks what it finds incomplete.
 */
export type TrajectoryOf = (runId: string, cut?: RunCut) => Promise<TrajectoryRead>;

/** The cut of a trial's run, from its result: a harness error (`timeout`, `crash`), or none. */
export function runCutOf(result: TaskResult): RunCut | undefined {
  if (result.status !== HARNESS_ERROR_STATUS) return undefined;
  return result.code === "timeout" ? "timeout" : "crash";
}

/**
 * `trajectoryOf(runId, cut)` as a value that never rejects: a trajectory is a by-product of
 * a trial, so one that cannot be read must not turn a graded trial into a crash.
 */
export async function readTrajectory(
  trajectoryOf: TrajectoryOf,
  runId: string,
  cut?: RunCut,
): Promise<TrajectoryRead> {
  try {
    return await trajectoryOf(runId, cut);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
