// The runtime this lesson's piece plugs into, re-exported so the tests import one place.
export { runAgent, type ToolSet } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export { withSerializedResults } from "./result-tools.ts";
export {
  capText,
  marker,
  type SerializeOptions,
  serializeResult,
  toStableJson,
} from "./serialize-result.ts";
