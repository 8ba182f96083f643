import { z } from "zod";
import type { ValueIssue } from "./issues.ts";

/**
 * An expected failure, as the model sees it: a stable `code` it can act on, a
 * readable `message`, and for `invalid_input` the problems found, each at its path.
 */
export interface ToolError {
  readonly code: string;
  readonly message: string;
  readonly issues?: readonly ValueIssue[];
}

/** The shape of a `ToolError` when it comes from a tool (so from outside the runtime). */
export const ToolErrorSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/**
 * What a tool returns to report an expected failure (`{ ok: false, error: { code,
 * message } }`): the loop writes it back to the model and the run goes on. A tool
 * that throws instead has hit something unexpected, and the run fails.
 */
export const ToolErrorResultSchema = z.object({ ok: z.literal(false), error: ToolErrorSchema });

/** An expected failure returned by a tool. */
export interface ToolErrorResult {
  readonly ok: false;
  readonly error: ToolError;
}

/** Builds the value a tool returns to report an expected failure. */
export function toolError(
  code: string,
  message: string,
  issues?: readonly ValueIssue[],
): ToolErrorResult {
  return { ok: false, error: issues === undefined ? { code, message } : { code, message, issues } };
}

/**
 * The error a tool returned (`{ ok: false, error: { code, message } }`), or
 * undefined for any other value. Never throws, even on a hostile value.
 */
export function asToolError(value: unknown): ToolError | undefined {
  try {
    // Most values are not errors: only one with `ok: false` is worth the schema's time.
    if ((value as { ok?: unknown } | null | undefined)?.ok !== false) return undefined;
    const parsed = ToolErrorResultSchema.safeParse(value);
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}
