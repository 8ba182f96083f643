import { AbortError, type Failure, type FailureRow } from "@coding-agent/agent-core";

export const exec = (
  exitCode: number | null,
  signal: string | null,
  timedOut: boolean,
): Failure => ({
  source: "exec",
  exitCode,
  signal,
  timedOut,
});

/** A concrete failure that the row of the table stands for. */
export function failureFor(row: FailureRow): Failure {
  switch (row.source) {
    case "provider":
      if (row.key === "no_response") return { source: "provider", status: undefined };
      // A range row: its first status that has no exact row of its own (400, 500).
      if (row.key.endsWith("xx")) return { source: "provider", status: Number(row.key[0]) * 100 };
      return { source: "provider", status: Number(row.key) };
    case "tool":
    case "stop":
      return { source: row.source, code: row.key };
    case "exec":
      if (row.key === "timed_out") return exec(null, "SIGKILL", true);
      if (row.key === "signal") return exec(null, "SIGSEGV", false);
      return exec(1, null, false);
    case "thrown":
      return {
        source: "thrown",
        error: row.key === "abort" ? new AbortError("stopped") : new Error("oops"),
      };
  }
}
