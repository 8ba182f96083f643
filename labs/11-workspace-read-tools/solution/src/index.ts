// The runtime and the read tools this lesson's piece plugs into, re-exported so the tests import one place.
export { runAgent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  createReadTools,
  listWorkspaceFiles,
  readWorkspaceFile,
  searchWorkspace,
  type Workspace,
  type WorkspacePath,
} from "@coding-agent/tools";
export {
  createConfinedWorkspace,
  outsideWorkspace,
  resolveInWorkspace,
  toRelative,
} from "./confine.ts";
