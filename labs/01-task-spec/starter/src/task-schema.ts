import { z } from "zod";

/**
 * 正整数，配上写明字段名的中文消息：读到 `budgets.maxSteps：maxSteps 必须大于 0` 的人
 * 知道该调哪个参数。
 */
function positiveInt(field: string) {
  return z
    .int({
      error: (issue) => (issue.input === undefined ? `缺少 ${field}` : `${field} 必须是整数`),
    })
    .positive({ error: `${field} 必须大于 0` });
}

/** 非空字符串；检查长度之前先去掉两端的空白。 */
function nonEmptyText(field: string) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `缺少 ${field}` : `${field} 必须是字符串`),
    })
    .trim()
    .min(1, { error: `${field} 不能为空` });
}

/** 未知的键按名字报告，而不是悄悄丢掉：拼错的字段不能无声通过。 */
function objectError(what: string) {
  return (issue: z.core.$ZodRawIssue): string =>
    issue.code === "unrecognized_keys"
      ? `未知字段：${issue.keys.join("、")}`
      : `${what}必须是一个 JSON 对象`;
}

/**
 * Runtime 的预算。给出 `budgets` 时，`maxSteps` 和 `maxRepeatedActions` 必须有；另外两个是可选的上
 * 限，由后面的课来执行。
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

/** 任务文件没有写预算时使用的预算。 */
export const DEFAULT_BUDGETS = { maxSteps: 20, maxRepeatedActions: 3 } as const;

/** 任务文件里可以写什么；解析后的值总是带着预算。 */
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
    // 每个任务一个新对象，一个任务改不了另一个任务的预算。
    budgets: budgetsSchema.default(() => ({ ...DEFAULT_BUDGETS })),
  },
  { error: objectError("任务") },
);

/** Runtime 其余部分看到的任务：已校验、已去空白、预算已补齐。 */
export type Task = z.infer<typeof taskSchema>;
/** 校验过的任务的预算。 */
export type Budgets = z.infer<typeof budgetsSchema>;
