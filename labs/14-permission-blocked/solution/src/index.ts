// The runtime this lesson's piece plugs into, re-exported so the tests import one place.
export { isBlockedOutcome, runAgent, type TraceEvent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  type ApprovalMode,
  type Approver,
  createSandboxPolicy,
  createWorkspace,
} from "@coding-agent/tools";
export { type ApprovalOptions, withApproval } from "./approval.ts";
export { commandNeedsApproval, createCommandTool } from "./command-tool.ts";
