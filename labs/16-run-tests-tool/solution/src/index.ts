// The run_tests this lesson's piece plugs into, and the runtime around it, re-exported so the tests import one place.
export { defineTool, runAgent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  createRunTests,
  createSandboxPolicy,
  createWorkspace,
  RunTestsInputSchema,
  type TestCounts,
} from "@coding-agent/tools";
export { readNodeTap } from "./tap.ts";
