import type { z } from "zod";
import { type ToolFailure, toolError } from "./tool-result.ts";

/**
 * Validates a tool's input at the boundary. A bad input is the model's mistake, so it
 * comes back as `invalid_input` naming each field, and the run goes on.
 */
export function parseToolInput<T>(
  schema: z.ZodType<T>,
  raw: unknown,
): { readonly ok: true; readonly value: T } | ToolFailure {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    return `${field.length > 0 ? field : "(input)"}: ${issue.message}`;
  });
  return toolError("invalid_input", `输入无效：${issues.join("；")}`);
}
