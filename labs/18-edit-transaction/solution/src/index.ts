// The apply_edits this lesson's piece plugs into, and the runtime around it, re-exported so the tests import one place.
export { runAgent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  createEditTools,
  createReadTools,
  createWorkspace,
  type FileOps,
  NODE_FILE_OPS,
  RollbackError,
  type WrittenChange,
  workspaceVersion,
} from "@coding-agent/tools";
export { rollBack } from "./rollback.ts";
