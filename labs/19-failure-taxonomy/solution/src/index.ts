// The taxonomy this lesson's piece reads, and the errors it meets, re-exported so the tests import one place.
export {
  AbortError,
  FAILURE_CLASSES,
  FAILURE_TABLE,
  type Failure,
  type FailureClass,
  type FailureRow,
  findFailureRow,
  ScriptExhaustedError,
} from "@coding-agent/agent-core";
export { classifyFailure } from "./classify.ts";
