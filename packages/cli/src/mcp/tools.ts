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
 * Whether a listed tool is offered as concurrent (`Tool.concurrent`: the calls of one reply
 * to such tools run at the same time, their results still recorded in call order). The MCP
 * spec (`ToolAnnotations`, `tools/list`; the SDK vendors it in `spec.types.d.ts`) says of
 * `readOnlyHint`: "If true, the tool does not modify its environment. Default: false", and of
 * every annotation: "all properties in ToolAnnotations are **hints**. They are not guaranteed
 * to provide a faithful description of tool behavior" and "Clients should never make tool
 * use decisions based on ToolAnnotations received from untrusted servers."
 *
 * Taking the hint is acceptable here because no server is untrusted in that sense: the CLI
 * starts only the servers the user configured (their settings, `--mcp-config`) or a
 * workspace they trusted declared (`loadHookSettings`: trust pinned to the definitions'
 * content); an untrusted workspace's servers never start. Such a server already runs with
 * the user's rights, and the hint decides only when a call starts, never whether it may:
 * a concurrent call still passes the schema check, the hooks and the approval gate, and its
 * result is recorded in call order. A wrong hint makes two calls to its server overlap.
 *
 * Safe by default: only `readOnlyHint === true` counts. Absent, `false` or not a boolean is
 * not concurrent; `destructiveHint`, `idempotentHint` and `openWorldHint` do not matter (the
 * spec gives the first two meaning only when `readOnlyHint` is false, and none of them says a
 * call changes nothing).
 */
export function listedReadOnly(listed: { readonly annotations?: unknown }): boolean {
  const { annotations } = listed;
  return (
    typeof annotations === "object" &&
    annotations !== null &&
    (annotations as { readonly readOnlyHint?: unknown }).readOnlyHint === true
  );
}

/**
 * A listed tool's description and schemas: the model is shown the server's JSON Schema as
 * given (`inputJsonSchema`), and every call is checked against that same schema here, before
 * anything is sent (Ajv, the validator the SDK itself ships), so a bad input is agent-core's
 * usual `invalid_input` with the server's own words for what is wrong, and a server is never
 * sent what it said it does not take. A schema Ajv cannot compile leaves the check to the
 * server (its error comes back as `mcp_error`); `warn` says so. A tool recorded `readOnly` is
 * `concurrent`.
 */
export function mcpToolShape(
  record: McpToolRecord,
  warn?: (line: string) => void,
): Pick<Tool, "description" | "inputSchema" | "inputJsonSchema" | "concurrent"> {
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
    // From the record, live and in a replay alike; a record without it ran alone.
    ...(record.readOnly === true ? { concurrent: true } : {}),
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
 * description, schemas (inputs are checked as they were) and concurrency (`readOnly`; a
 * record written before it was kept has none, and its calls ran alone), whose `execute` is
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
