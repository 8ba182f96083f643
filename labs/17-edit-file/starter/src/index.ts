// The edit_file this lesson's piece plugs into, and the runtime around it, re-exported so the tests import one place.
export { runAgent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  createEditTools,
  createReadTools,
  createWorkspace,
  type LocateOutcome,
  replaceExactlyOnce,
} from "@coding-agent/tools";
export { locateOnce } from "./locate.ts";
