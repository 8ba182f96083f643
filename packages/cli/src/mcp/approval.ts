import type { GatedCall } from "@coding-agent/tools";
import { bounded } from "./call-tool.ts";

/** One listed MCP tool, as the approval gate names it. */
export interface McpGatedTool {
  /** `mcp__<server>__<tool>`. */
  readonly name: string;
  /** The server's name. */
  readonly server: string;
}

/** Decides what the gate is asked about one call (lesson 37 passes the learner's). */
export type McpApprovalCall = (
  tool: McpGatedTool,
  input: object,
  allowTools: readonly string[],
) => GatedCall | undefined;

/**
 * What the approval gate is asked about one call of an MCP tool (docs/contracts.md §7, lesson 37):
 * nothing (`undefined`, the call runs) only when `--allow-tool` names exactly this tool;
 * otherwise the request the gate decides by `--approval` (`auto` allows it, `deny` blocks
 * the run, `ask` asks), showing the tool and its input; "allow for the run" covers the tool.
 */
export const mcpApprovalCall: McpApprovalCall = (tool, input, allowTools) =>
  allowTools.includes(tool.name)
    ? undefined
    : {
        request: {
          tool: tool.name,
          argv: [tool.name, bounded(JSON.stringify(input))],
          program: tool.name,
          reason: `调用 MCP 工具 ${tool.name}（服务器 ${tool.server}）需要批准（--approval，或用 --allow-tool ${tool.name} 允许）`,
        },
        undone: `${tool.name} 没有调用`,
      };
