// The runtime this lesson's piece plugs into, re-exported so the tests import one place.
export { defineTool, runAgent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  createRunCommand,
  createWorkspace,
  DEFAULT_ENV_ALLOWLIST,
  RunCommandInputSchema,
  runProcess,
  type SandboxPolicy,
} from "@coding-agent/tools";
export { buildChildEnv, createPolicy, looksSecret } from "./child-env.ts";
