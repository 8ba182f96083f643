export type { Action } from "./action.ts";
export type { AgentLimits, AgentRunResult, AgentStatus } from "./agent-loop.ts";
export { runAgent } from "./agent-loop.ts";
export { UnhandledActionError } from "./errors.ts";
export type { ModelRequest, Provider } from "./provider.ts";
export type { Tool, ToolSet } from "./tool.ts";
