import type { z } from "zod";

/** One problem found in a value: where (a path such as `items[0].name`, `(root)` for the whole) and what. */
export interface ValueIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * How the value itself is named when an issue has no path: one spelling per audience,
 * `(root)` in text for developers and models (the default), `(根)` in text a learner reads.
 */
export type RootLabel = "(root)" | "(根)";

/** Zod's issues as `{ path, message }` records, one per issue, in zod's order. */
export function toValueIssues(
  issues: readonly z.core.$ZodIssue[],
  rootLabel: RootLabel = "(root)",
): ValueIssue[] {
  return issues.map((issue) => ({
    path: formatIssuePath(issue.path, rootLabel),
    message: issue.message,
  }));
}

/** A zod issue path as text: `a.b[0].c`, or the root label for the value itself. */
export function formatIssuePath(
  path: readonly PropertyKey[],
  rootLabel: RootLabel = "(root)",
): string {
  if (path.length === 0) return rootLabel;
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
