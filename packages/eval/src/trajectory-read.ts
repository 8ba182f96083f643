/**
 * A run read as an interchange trajectory (the CLI's ATIF, checked against its field list),
 * or why it could not be. The eval package only stores it: what a trajectory holds is the
 * CLI's business.
 */
export type TrajectoryRead =
  | { readonly ok: true; readonly trajectory: unknown }
  | { readonly ok: false; readonly message: string };

/**
 * Reads the trajectory of a run by its id, where the run happened: the producer's machine
 * for a local job, the worker's for a trial taken from the queue.
 */
export type TrajectoryOf = (runId: string) => Promise<TrajectoryRead>;

/**
 * `trajectoryOf(runId)` as a value that never rejects: a trajectory is a by-product of a
 * trial, so one that cannot be read must not turn a graded trial into a crash.
 */
export async function readTrajectory(
  trajectoryOf: TrajectoryOf,
  runId: string,
): Promise<TrajectoryRead> {
  try {
    return await trajectoryOf(runId);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
