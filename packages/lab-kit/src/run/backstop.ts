/**
 * The one coarse backstop of a lab test run, for the hangs no loop guard reaches (inside a
 * dependency, a regex backtracking for ever): it is told of every sign of progress and
 * calls `onStall` once when none came for {@link NO_PROGRESS_MS} while a run is on.
 */
import { clearInterval, setInterval } from "node:timers";
import { NO_PROGRESS_MS } from "./settings.ts";

export interface Backstop {
  /** Something happened: a file queued or finished, a test ended. */
  progress(): void;
  /** A run started (watch mode has several) or ended: only a run in progress can stall. */
  running(on: boolean): void;
  stop(): void;
}

export function createBackstop(onStall: () => void, limitMs = NO_PROGRESS_MS): Backstop {
  let last = Date.now();
  let on = false;
  const timer = setInterval(
    () => {
      if (on && Date.now() - last >= limitMs) {
        clearInterval(timer);
        onStall();
      }
    },
    Math.min(1_000, limitMs / 4),
  );
  timer.unref();
  return {
    progress: () => {
      last = Date.now();
    },
    running: (value) => {
      on = value;
      last = Date.now();
    },
    stop: () => clearInterval(timer),
  };
}
