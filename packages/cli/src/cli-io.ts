import type { Approver } from "@coding-agent/tools";
import type { TraceWriter } from "./trace/jsonl-sink.ts";

/** Where the CLI writes; a test passes buffers, `main.ts` passes the process streams. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Asks the user for a permission (`--approval ask`); absent without a terminal, which refuses. */
  readonly approver?: Approver;
  /** Whether stderr is a terminal: a real model's reply text is shown there as it streams. */
  readonly stderrIsTerminal?: boolean;
  /** Whether stdout shows colours (a terminal, and `NO_COLOR` unset); absent: no colour. */
  readonly color?: boolean;
  /** How a run's `trace.jsonl` lines are written; tests inject one that fails. */
  readonly traceWriter?: (file: string) => TraceWriter;
}
