import { z } from "zod";

/**
 * A positive whole number with Chinese messages that name the field, so a learner reading
 * `budgets.maxSteps：maxSteps 必须大于 0` knows which knob to turn.
 */
function positiveInt(field: string) {
  return z
    .int({
      error: (issue) => (issue.input === undefined ? `缺少 ${field}` : `${field} 必须是整数`),
    })
    .positive({ error: `${field} 必须大于 0` });
}

/** A non-empty string; surrounding whitespace is trimmed before the length check. */
function nonEmptyText(field: string) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `缺少 ${field}` : `${field} 必须是字符串`),
    })
    .trim()
    .min(1, { error: `${field} 不能为空` });
}

/** Reports unknown keys by name instead of dropping them: a typo must not pass silently. */
function objectError(what: string) {
  return (issue: z.core.$ZodRawIssue): string =>
    issue.code === "unrecognized_keys"
      ? `未知字段：${issue.keys.join("、")}`
      : `${what}必须是一个 JSON 对象`;
}

/**
 * The runtime's budgets. `maxSteps` and `maxRepeatedActions` are required once `budgets`
 * is given; the other two are optional ceilings that later lessons enforce.
 */
export const budgetsSchema = z.strictObject(
  {
    maxSteps: positiveInt("maxSteps"),
    maxRepeatedActions: positiveInt("maxRepeatedActions"),
    maxToolCalls: positiveInt("maxToolCalls").optional(),
    maxDurationMs: positiveInt("maxDurationMs").optional(),
  },
  { error: objectError("budgets ") },
);

/** Budgets a task gets when its file names none. */
export const DEFAULT_BUDGETS = { maxSteps: 20, maxRepeatedActions: 3 } as const;

/** What a task file may contain; the parsed value always carries budgets. */
export const taskSchema = z.strictObject(
  {
    goal: nonEmptyText("goal"),
    workspace: nonEmptyText("workspace").optional(),
    constraints: z
      .array(
        z
          .string({ error: "每条约束都必须是字符串" })
          .trim()
          .min(1, { error: "约束不能是空字符串" }),
        { error: "constraints 必须是字符串数组" },
      )
      .optional(),
    // A fresh object per task, so one task cannot change the budgets of another.
    budgets: budgetsSchema.default(() => ({ ...DEFAULT_BUDGETS })),
  },
  { error: objectError("任务") },
);

/** A task as the rest of the runtime sees it: validated, trimmed, budgets filled in. */
export type Task = z.infer<typeof taskSchema>;
/** The budgets of a validated task. */
export type Budgets = z.infer<typeof budgetsSchema>;
