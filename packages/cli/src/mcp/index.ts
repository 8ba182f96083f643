import type { Redactor } from "@coding-agent/agent-core";
import type { ApprovalMode, Approver } from "@coding-agent/tools";
import { loadMcpConfigFile, type McpServerConfig, mergeServers } from "./config.ts";
import { expandServers } from "./expand.ts";
import type { McpSession } from "./servers.ts";

export {
  type McpApprovalCall,
  type McpGatedTool,
  mcpApprovalCall,
} from "./approval.ts";
export {
  loadMcpConfigFile,
  type McpServerConfig,
  type McpServersParse,
  parseMcpServers,
} from "./config.ts";
export { type McpRecord, McpRecordSchema, type McpToolRecord } from "./record.ts";
export { mcpSecretValues } from "./secrets.ts";
export type { McpSession } from "./servers.ts";

/** The client version the CLI gives servers in `initialize`. */
const CLIENT_VERSION = "0.1.0";

/**
 * The MCP servers of a run (lesson 37): those of the settings files (the user's, and a
 * trusted workspace's: `loadHookSettings` applies the trust rule), then `--mcp-config`'s
 * (the user named that file: it is trusted), a later definition of a name replacing an
 * earlier one; `${VAR}` expanded from the CLI's environment. A bad `--mcp-config`, or a
 * variable that is not set, is a usage error (exit 2) before anything starts. Resolved
 * before the run's redactor is made: the secrets they are given are masked too.
 */
export async function resolveMcpServers(options: {
  readonly settingsServers: readonly McpServerConfig[];
  readonly configFile: string | undefined;
  /** Where `${VAR}` in a server's definition is read from (the CLI's environment). */
  readonly env: Readonly<Record<string, string | undefined>>;
}): Promise<
  | { readonly ok: true; readonly servers: readonly McpServerConfig[] }
  | { readonly ok: false; readonly message: string }
> {
  let fromFile: readonly McpServerConfig[] = [];
  if (options.configFile !== undefined) {
    const loaded = await loadMcpConfigFile(options.configFile);
    if (!loaded.ok) return loaded;
    fromFile = loaded.servers;
  }
  const merged = mergeServers(options.settingsServers, fromFile);
  if (merged.length === 0) return { ok: true, servers: [] };
  return expandServers(merged, options.env);
}

/** Starts the resolved servers of a run (none: no session). */
export async function prepareMcp(options: {
  readonly servers: readonly McpServerConfig[];
  readonly workspace: string;
  readonly approval: ApprovalMode;
  readonly approver?: Approver;
  readonly allowTools: readonly string[];
  readonly redact: Redactor;
  readonly warn: (line: string) => void;
  readonly signal?: AbortSignal;
}): Promise<McpSession | undefined> {
  if (options.servers.length === 0) return undefined;
  // The MCP SDK (and its JSON Schema validator) loads only for a run that has servers.
  const { startMcpServers } = await import("./servers.ts");
  return startMcpServers({
    servers: options.servers,
    workspace: options.workspace,
    approval: options.approval,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    allowTools: options.allowTools,
    redact: options.redact,
    warn: options.warn,
    version: CLIENT_VERSION,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}
