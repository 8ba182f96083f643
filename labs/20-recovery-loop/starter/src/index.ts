// What this lesson's piece decides with, and the loop that uses it, re-exported so the tests import one place.
export {
  FAILURE_CLASSES,
  type FailureClass,
  type RetryDecision,
  type RetryInput,
  type RetryPolicy,
  withRetry,
} from "@coding-agent/agent-core";
export { decideRetry } from "./decide.ts";
