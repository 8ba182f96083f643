// The runtime this lesson's piece plugs into, re-exported so the tests import one place.
export { createLoopGuard, runAgent, type Tool } from "@coding-agent/agent-core";
export { createScriptedProvider } from "@coding-agent/agent-core/testing";
export { CallTimeoutError, withTimeout, withToolTimeout } from "./timeout.ts";
