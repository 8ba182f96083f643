import type { Action } from "./action.ts";

/**
 * The minimal fingerprint of an action, for spotting a model that repeats itself:
 * its JSON text. Two limits, on purpose for this lesson: keys inside `input` keep the
 * order the model wrote them in, and a fresh `callId` makes an otherwise identical
 * call look new. The capstone sorts keys at every depth and leaves `callId` out.
 * (Top-level keys are already in schema order, because `parseAction` rebuilt the object.)
 */
export function fingerprintAction(action: Action): string {
  return JSON.stringify(action);
}
