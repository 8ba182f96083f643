import type { RunStatus } from "@coding-agent/agent-core";

/**
 * Every exit code of `coding-agent`. Scripts and CI branch on these, so each outcome has its
 * own: 0 completed (and help), 1 failed, 2 usage error (an unknown command or flag, a bad
 * value, a bad script file), 3 budget exceeded, 4 blocked, 130 cancelled (128 + SIGINT, what
 * shells report for Ctrl-C).
 */
export const EXIT_CODES = {
  ok: 0,
  failed: 1,
  usage: 2,
  budgetExceeded: 3,
  blocked: 4,
  cancelled: 130,
} as const;

/** One of `EXIT_CODES`. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Exit code for bad usage; the same as `EXIT_CODES.usage`. */
export const EXIT_USAGE = EXIT_CODES.usage;

/** The exit code of a finished run. */
export function exitCodeFor(status: RunStatus): ExitCode {
  switch (status) {
    case "completed":
      return EXIT_CODES.ok;
    case "failed":
      return EXIT_CODES.failed;
    case "budget_exceeded":
      return EXIT_CODES.budgetExceeded;
    case "blocked":
      return EXIT_CODES.blocked;
    case "cancelled":
      return EXIT_CODES.cancelled;
    default: {
      const unreachable: never = status;
      throw new TypeError(`unhandled status ${String(unreachable)}`);
    }
  }
}
