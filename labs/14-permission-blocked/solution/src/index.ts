// The run_command this lesson's piece plugs into, and the runtime around it, re-exported so the tests import one place.
export { isBlockedOutcome, runAgent, type TraceEvent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  type ApprovalMode,
  type Approver,
  createRunCommandTool,
  createSandboxPolicy,
  createWorkspace,
  type GatedCall,
} from "@coding-agent/tools";
export { decideApproval } from "./approval.ts";
