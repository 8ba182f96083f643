/** The error codes the machine tools return (design §6). */
export type ToolErrorCode =
  | "path_outside_workspace"
  | "not_found"
  | "is_directory"
  | "invalid_input"
  | "not_allowed"
  | "timeout";

/**
 * An expected failure, returned to the model as a value so the run goes on
 * (design §6): `{ ok: false, error: { code, message } }`.
 */
export interface ToolFailure {
  readonly ok: false;
  readonly error: { readonly code: ToolErrorCode; readonly message: string };
}

/** Builds a `ToolFailure`. */
export function toolError(code: ToolErrorCode, message: string): ToolFailure {
  return { ok: false, error: { code, message } };
}

/** True for a `ToolFailure` value. */
export function isToolFailure(value: unknown): value is ToolFailure {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { ok?: unknown }).ok === false &&
    typeof (value as { error?: unknown }).error === "object"
  );
}
