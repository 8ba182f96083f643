import type { JsonSchema } from "@coding-agent/agent-core";
import { z } from "zod";

// What a run's log keeps of its MCP servers, apart from the SDK: the run spec validates it
// on every command that reads a log, and must not load the MCP SDK (or ajv) to do so.

/** A tool a server listed at start, as the run offers it and its log records it. */
export interface McpToolRecord {
  /** `mcp__<server>__<tool>`. */
  readonly name: string;
  readonly server: string;
  /** The tool's own name on its server. */
  readonly tool: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /**
   * The server listed it with `annotations.readOnlyHint: true` (`listedReadOnly`): its calls
   * run beside the other concurrent calls of a reply (`Tool.concurrent`). Recorded so a replay
   * batches the calls as the run did without asking a server; absent (a log written before it
   * was recorded) is `false`, as every MCP call then ran alone.
   */
  readonly readOnly?: boolean;
}

/** What the run's log keeps of its MCP servers (`run_started.options.mcp`), for a replay. */
export interface McpRecord {
  /** Every configured server. */
  readonly servers: readonly string[];
  /** Those that never started (any tool name under them was answered `mcp_error`). */
  readonly failed: readonly string[];
  readonly tools: readonly McpToolRecord[];
}

export const McpRecordSchema = z.object({
  servers: z.array(z.string()),
  failed: z.array(z.string()),
  tools: z.array(
    z.object({
      name: z.string(),
      server: z.string(),
      tool: z.string(),
      description: z.string(),
      inputSchema: z.record(z.string(), z.unknown()),
      readOnly: z.boolean().optional(),
    }),
  ),
});
