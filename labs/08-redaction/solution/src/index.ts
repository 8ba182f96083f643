// The runtime this lesson's piece plugs into, re-exported so the tests import one place.
export { runAgent, type TraceEvent } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export {
  createRedactor,
  MIN_SECRET_LENGTH,
  type Redactor,
  type RedactorOptions,
  SECRET_ENV_NAME,
  SECRET_PATTERNS,
  type SecretPattern,
  secretValues,
} from "./redact.ts";
