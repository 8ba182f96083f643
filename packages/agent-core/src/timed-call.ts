import { type Settled, settleWithTimeout } from "./abortable.ts";
import type { Run } from "./run-state.ts";

/** How a timed call ended: as `Settled`, or which time limit fired first. */
export type CallOutcome<T> =
  | Settled<T>
  | {
      readonly kind: "timeout";
      readonly limit: "call" | "run";
      /** Why the run's time is up, when it is not the call running out of it. */
      readonly reason?: string;
    };

/**
 * Runs one provider, tool or extension call under the run's time limits: its own
 * timeout (`modelTimeoutMs` / `toolTimeoutMs`, or none) and what is left of
 * `maxDurationMs`, whichever ends first, and the run's signal. A timed call gets a
 * signal of its own, aborted when its time is up; without any time limit the call
 * gets the run's signal and one listener serves the whole run (the fast path).
 */
export function timedCall<T>(
  run: Run,
  call: (signal: AbortSignal) => T | PromiseLike<T>,
  callMs: number | undefined,
): Promise<CallOutcome<T>> {
  const runMs = run.guard.remainingMs();
  if (runMs === undefined && callMs === undefined) {
    return run.race.settle(() => call(run.callSignal));
  }
  // On a tie the run's deadline is named: the run is over either way.
  const runFirst = runMs !== undefined && (callMs === undefined || runMs <= callMs);
  const ms = runFirst ? (runMs ?? 0) : (callMs ?? 0);
  return settleWithTimeout(call, ms, run.signal).then((settled) =>
    settled.kind === "timeout" ? { kind: "timeout", limit: runFirst ? "run" : "call" } : settled,
  );
}
