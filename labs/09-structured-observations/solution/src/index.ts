// The runtime this lesson's piece plugs into, re-exported so the tests import one place.
export { runAgent, type Tool } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  EXPECTED_ERROR_CODES,
  expectedCode,
  type Observation,
  observationsOf,
  toExpectedError,
  withExpectedErrors,
} from "./observations.ts";
