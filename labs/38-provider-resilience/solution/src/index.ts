export { parseRetryAfter, retryWait } from "./retry-after.ts";
export { addToolCallDelta } from "./tool-call-deltas.ts";
