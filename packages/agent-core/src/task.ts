import { z } from "zod";
import { formatValueIssues, toValueIssues, type ValueIssue } from "./issues.ts";

/**
 * Budgets a task may ask for. `runAgent` applies the tighter of these and the
 * caller's limits, and enforces them through the LoopGuard, never the prompt.
 */
export const TaskBudgetsSchema = z.strictObject({
  maxSteps: z.int().min(0).optional(),
  maxToolCalls: z.int().min(0).optional(),
  maxTokens: z.int().min(0).optional(),
  maxDurationMs: z.int().min(0).optional(),
  modelTimeoutMs: z.int().min(1).optional(),
  toolTimeoutMs: z.int().min(1).optional(),
  maxRepeatedActions: z.int().min(1).optional(),
  maxToolErrors: z.int().min(1).optional(),
});

/** A task: what the agent must achieve, where, and within which limits. */
export const TaskSchema = z.strictObject({
  goal: z.string().trim().min(1, "目标不能为空"),
  workspace: z.string().trim().min(1, "工作区路径不能为空").optional(),
  constraints: z.array(z.string().trim().min(1, "约束不能为空")).optional(),
  budgets: TaskBudgetsSchema.optional(),
});

/** A validated task. */
export type Task = z.infer<typeof TaskSchema>;
/** Budgets of a validated task. */
export type TaskBudgets = z.infer<typeof TaskBudgetsSchema>;

/** One problem found in a task: where (a dotted path, `(root)` for the whole) and what. */
export type TaskIssue = ValueIssue;

/** The outcome of `parseTask`: the task, or every problem found (not only the first). */
export type TaskParseResult =
  | { readonly ok: true; readonly task: Task }
  | { readonly ok: false; readonly issues: readonly TaskIssue[] };

/**
 * Validates unknown input (a parsed JSON file, CLI input) into a `Task`.
 * Reports every problem at once, each with its path, so a user fixes them in one pass.
 */
export function parseTask(input: unknown): TaskParseResult {
  const parsed = TaskSchema.safeParse(input);
  if (parsed.success) return { ok: true, task: parsed.data };
  return { ok: false, issues: toValueIssues(parsed.error.issues) };
}

/** Renders issues one per line as `path: message`, for a terminal or a log. */
export function formatTaskIssues(issues: readonly TaskIssue[]): string {
  return formatValueIssues(issues);
}

/** The text of the first (user) message of a run: the goal, then workspace and constraints. */
export function renderTask(task: Task): string {
  const lines = [task.goal];
  if (task.workspace !== undefined) lines.push(`工作区：${task.workspace}`);
  if (task.constraints !== undefined && task.constraints.length > 0) {
    lines.push("约束：", ...task.constraints.map((constraint) => `- ${constraint}`));
  }
  return lines.join("\n");
}
