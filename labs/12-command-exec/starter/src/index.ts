// The runtime and the run_command this lesson's piece plugs into, re-exported so the tests import one place.
export { defineTool, runAgent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  createRunCommand,
  createSandboxPolicy,
  createWorkspace,
  type ProcessOptions,
  type ProcessResult,
  RunCommandInputSchema,
} from "@coding-agent/tools";
export { runProcess } from "./exec.ts";
