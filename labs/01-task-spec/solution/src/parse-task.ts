import type { z } from "zod";
import { type Task, taskSchema } from "./task-schema.ts";

/** One thing wrong with a task: where (a field path) and what (a Chinese message). */
export interface TaskProblem {
  /** `goal`, `budgets.maxSteps`, `constraints[1]`; `(根)` for the task itself. */
  readonly path: string;
  readonly message: string;
}

/** The outcome of parsing a task: the task, or every problem found in it. */
export type TaskParseResult =
  | { readonly ok: true; readonly task: Task }
  | { readonly ok: false; readonly problems: readonly TaskProblem[] };

/** Writes a zod issue path the way a person would type it: `budgets.maxSteps`, `constraints[1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(根)";
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text;
}

function toProblem(issue: z.core.$ZodIssue): TaskProblem {
  return { path: formatPath(issue.path), message: issue.message };
}

/**
 * Validates an unknown value (already parsed from JSON) as a task. Never throws for bad
 * input: a task with three mistakes comes back with three problems, so the author fixes
 * them in one pass instead of one per run.
 */
export function parseTask(input: unknown): TaskParseResult {
  // safeParse, not parse: a bad task is an expected outcome, not a crash.
  const parsed = taskSchema.safeParse(input);
  if (parsed.success) return { ok: true, task: parsed.data };
  // #region exercise
  // zod 不会在第一个错误处停下：它给出的每个 issue 都要交给用户，顺序保持不变。
  const problems = parsed.error.issues.map(toProblem);
  // #endregion exercise
  return { ok: false, problems };
}

/** Parses the text of a task file: JSON that does not parse is one more problem, not a throw. */
export function parseTaskText(text: string): TaskParseResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, problems: [{ path: "(根)", message: `不是合法的 JSON：${reason}` }] };
  }
  return parseTask(data);
}

/** One line per problem, ready for a terminal: `- budgets.maxSteps：maxSteps 必须大于 0`. */
export function formatProblems(problems: readonly TaskProblem[]): string {
  return problems.map((problem) => `- ${problem.path}：${problem.message}`).join("\n");
}
