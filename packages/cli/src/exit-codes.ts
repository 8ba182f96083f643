import type { RunStatus } from "@coding-agent/agent-core";

/** Exit code for bad usage: an unknown command or flag, a bad value, a bad script file. */
export const EXIT_USAGE = 2;

/**
 * The exit code of a finished run. Scripts and CI branch on these, so each status
 * has its own: completed 0, failed 1, budget_exceeded 3, blocked 4, cancelled 130
 * (128 + SIGINT, what shells report for Ctrl-C).
 */
export function exitCodeFor(status: RunStatus): number {
  switch (status) {
    case "completed":
      return 0;
    case "failed":
      return 1;
    case "budget_exceeded":
      return 3;
    case "blocked":
      return 4;
    case "cancelled":
      return 130;
    default: {
      const unreachable: never = status;
      throw new TypeError(`unhandled status ${String(unreachable)}`);
    }
  }
}
