// The runtime this lesson's piece plugs into, re-exported so the tests import one place.
export { runAgent, type Tool, type ToolSet } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export { z } from "zod";
export {
  createContractRegistry,
  describeTool,
  invalidInputError,
  validateToolInput,
} from "./tool-contract.ts";
