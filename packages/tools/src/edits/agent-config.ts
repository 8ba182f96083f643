import path from "node:path";

/** The folder of the agent's own settings in a workspace (hooks, MCP servers). */
export const AGENT_CONFIG_DIR = ".coding-agent";
/** The `.mcp.json` shape's usual file name: MCP servers a client may start. */
export const MCP_CONFIG_FILE = ".mcp.json";

/**
 * True when `relative` (a workspace path, `/` separators) is the agent's own
 * configuration: anything under a `.coding-agent/` folder, any `.mcp.json`, or one of
 * `namedFiles` (the scripts hooks and MCP servers run). The agent never writes these: a
 * hook it planted would run on the next trusted run, outside the sandbox, unasked. Any
 * depth counts, since a subfolder is the workspace of another run.
 */
export function isAgentConfig(relative: string, namedFiles: ReadonlySet<string>): boolean {
  if (namedFiles.has(relative)) return true;
  const parts = relative.split("/");
  return parts.includes(AGENT_CONFIG_DIR) || parts.at(-1) === MCP_CONFIG_FILE;
}

/**
 * The absolute paths a sandboxed command must see read-only: the workspace's
 * `.coding-agent/` and `.mcp.json`, and the named files that are inside it.
 */
export function agentConfigMounts(root: string, namedFiles: readonly string[] = []): string[] {
  const inside = namedFiles
    .map((file) => path.resolve(root, file))
    .filter((file) => file.startsWith(`${root}${path.sep}`));
  return [
    ...new Set([path.join(root, AGENT_CONFIG_DIR), path.join(root, MCP_CONFIG_FILE), ...inside]),
  ];
}
