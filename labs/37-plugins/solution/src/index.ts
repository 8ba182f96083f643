export { mcpApprovalCall, parseMcpServers } from "./mcp-config.ts";
