import {
  createToolRegistry,
  type Tool,
  type ToolRegistry,
  type ToolSet,
} from "@coding-agent/agent-core";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import type { McpRecord, McpToolRecord } from "./record.ts";

export { type McpRecord, McpRecordSchema, type McpToolRecord } from "./record.ts";

/** How agent-core accepts a tool name (kept in step with its registry). */
const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** The name the model calls a server's tool by; undefined when agent-core could not register it. */
export function mcpToolName(server: string, tool: string): string | undefined {
  const name = `mcp__${server}__${tool}`;
  return TOOL_NAME.test(name) ? name : undefined;
}

/** The configured server a tool name belongs to (`mcp__<server>__…`), if any. */
export function serverOf(name: string, servers: readonly string[]): string | undefined {
  if (!name.startsWith("mcp__")) return undefined;
  const rest = name.slice("mcp__".length);
  const at = rest.indexOf("__");
  if (at <= 0 || at + 2 >= rest.length) return undefined;
  const server = rest.slice(0, at);
  return servers.includes(server) ? server : undefined;
}

const validators = new AjvJsonSchemaValidator();

/**
 * A listed tool's description and schemas: the model is shown the server's JSON Schema as
 * given (`inputJsonSchema`), and every call is checked against that same schema here, before
 * anything is sent (Ajv, the validator the SDK itself ships), so a bad input is agent-core's
 * usual `invalid_input` with the server's own words for what is wrong, and a server is never
 * sent what it said it does not take. A schema Ajv cannot compile leaves the check to the
 * server (its error comes back as `mcp_error`); `warn` says so.
 */
export function mcpToolShape(
  record: McpToolRecord,
  warn?: (line: string) => void,
): Pick<Tool, "description" | "inputSchema" | "inputJsonSchema"> {
  let check: ((input: unknown) => string | undefined) | undefined;
  try {
    const validate = validators.getValidator(record.inputSchema as never);
    check = (input) => {
      const verdict = validate(input);
      return verdict.valid ? undefined : verdict.errorMessage;
    };
  } catch (error) {
    warn?.(
      `警告：MCP 工具 ${record.name} 的 inputSchema 无法编译（${(error as Error).message}），输入交给服务器校验\n`,
    );
  }
  const inputSchema = z.looseObject({}).check((ctx) => {
    const problem = check?.(ctx.value);
    if (problem !== undefined) {
      ctx.issues.push({
        code: "custom",
        message: `不符合服务器给的 JSON Schema（${problem}）`,
        input: ctx.value,
      });
    }
  });
  return {
    description: record.description,
    inputSchema,
    inputJsonSchema: record.inputSchema,
  };
}

/**
 * A registry of `all` in which a name under a server that is not running (`downServer`
 * names it) finds `standIn(name, server)` instead of being an unknown tool (which ends the
 * run): its input is not checked (there is no schema to check it against) and the stand-in
 * answers. Every other name is agent-core's registry of `all`, unchanged.
 */
export function withDownServers(
  all: ToolSet,
  downServer: (name: string) => string | undefined,
  standIn: (name: string, server: string) => Tool,
): ToolRegistry {
  const base = createToolRegistry(all);
  const made = new Map<string, Tool>();
  return {
    ...base,
    get(name) {
      const tool = base.get(name);
      if (tool !== undefined) return tool;
      const server = downServer(name);
      if (server === undefined) return undefined;
      let found = made.get(name);
      if (found === undefined) {
        found = standIn(name, server);
        made.set(name, found);
      }
      return found;
    },
    validate(name, input) {
      if (base.get(name) === undefined && downServer(name) !== undefined)
        return { ok: true, input };
      return base.validate(name, input);
    },
  };
}

/**
 * The MCP tools of a recorded run, for a replay: each listed tool with its recorded
 * description and schemas (inputs are checked as they were), whose `execute` is
 * `standIn`'s, and a registry in which the tools of a server that never started are found,
 * as in the run. No server is started. A log without `options.mcp` (no MCP server, or an
 * older log) has none.
 */
export function recordedMcpTools(
  record: McpRecord | undefined,
  standIn: (name: string) => Tool["execute"],
): { readonly tools: ToolSet; registry(all: ToolSet): ToolRegistry | ToolSet } {
  if (record === undefined) return { tools: {}, registry: (all) => all };
  const tools = Object.fromEntries(
    record.tools.map((tool): [string, Tool] => [
      tool.name,
      { ...mcpToolShape(tool), execute: standIn(tool.name) },
    ]),
  );
  return {
    tools,
    registry: (all) =>
      withDownServers(
        all,
        (name) => serverOf(name, record.failed),
        (name) => ({ execute: standIn(name) }),
      ),
  };
}
