import type { z } from "zod";

/** One problem found in a value: where (a path such as `items[0].name`, `(root)` for the whole) and what. */
export interface ValueIssue {
  readonly path: string;
  readonly message: string;
}

/** Zod's issues as `{ path, message }` records, one per issue, in zod's order. */
export function toValueIssues(issues: readonly z.core.$ZodIssue[]): ValueIssue[] {
  return issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }));
}

/** A zod issue path as text: `a.b[0].c`, or `(root)` for the value itself. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map((key, index) => {
      if (typeof key === "number") return `[${key}]`;
      return index === 0 ? String(key) : `.${String(key)}`;
    })
    .join("");
}

/** Issues one per line as `path: message`, for a terminal, a log or a model. */
export function formatValueIssues(issues: readonly ValueIssue[], separator = "\n"): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join(separator);
}
