import { stableStringify } from "./serialize.ts";

/**
 * Errors thrown by agent-core. They signal programmer or configuration mistakes
 * (a bad limits object, a scripted provider used past its script), never the
 * outcome of a run: a run's outcome is always a value (see `RunResult`).
 */

/** Base class: sets `name` to the concrete class name and keeps `cause`. */
export class AgentCoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The limits passed to `runAgent` or `createLoopGuard` do not match `LimitsSchema`. */
export class InvalidLimitsError extends AgentCoreError {}

/** The task passed to `runAgent` does not match `TaskSchema`. */
export class InvalidTaskError extends AgentCoreError {}

/**
 * A run account misused: charged with an amount that is no amount (negative, NaN, a
 * fraction of a step), or given to a second run (see `createRunAccount`).
 */
export class RunAccountError extends AgentCoreError {}

/** A tool registry was built with an invalid or duplicate tool name. */
export class InvalidToolRegistryError extends AgentCoreError {}

/** The scripted provider was called more times than its script has turns. */
export class ScriptExhaustedError extends AgentCoreError {}

/** `assertAllUsed()` found turns of the script that were never requested. */
export class ScriptNotFinishedError extends AgentCoreError {}

/** Error used to reject an operation because its `AbortSignal` fired. */
export class AbortError extends AgentCoreError {}

/** True for any error that means "aborted" (ours or the DOM `AbortError`). Never throws. */
export function isAbortError(error: unknown): boolean {
  try {
    return error instanceof Error && (error instanceof AbortError || error.name === "AbortError");
  } catch {
    // A Proxy whose traps throw, or a `name` getter that throws: not an abort.
    return false;
  }
}

/**
 * The message of anything thrown, as text. Never throws: a Proxy whose traps
 * throw or a throwing `message` getter gives a fixed placeholder instead.
 */
export function errorMessage(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message: unknown = error.message;
      if (typeof message === "string" && message.length > 0) return message;
      return String(error.name);
    }
    return String(error);
  } catch {
    return "（无法读取的错误值）";
  }
}

/** Any thrown value as text: an error's message, a string, or the value as JSON. Never throws. */
export function errorText(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error);
  try {
    return error instanceof Error ? errorMessage(error) : stableStringify(error);
  } catch {
    // A revoked Proxy (`instanceof` throws), a throwing trap or `toJSON`: its message, or
    // errorMessage's placeholder.
    return errorMessage(error);
  }
}
