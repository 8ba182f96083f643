import { z } from "zod";

/** 评测框架自己给每次运行设置的选项：任务的 args 不能再给一遍。 */
export const HARNESS_FLAGS = ["workspace", "json", "script", "test-command", "help"] as const;

/** 一个 `<任务集>/<id>/task.json`（docs/contracts.md §7 Eval 的任务格式，本课用到的字段）。 */
export const TaskSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "只能由字母、数字、.、_、- 组成"),
  goal: z.string().trim().min(1, "不能为空"),
  repo: z.string().min(1, "需要夹具目录（相对任务目录）"),
  testCommand: z.string().trim().min(1, "不能为空"),
  allowPaths: z.array(z.string().min(1, "glob 不能为空")).optional(),
  forbiddenPaths: z.array(z.string().min(1, "glob 不能为空")).optional(),
  args: z.array(z.string()).optional(),
  expect: z
    .strictObject({
      status: z.enum(["completed", "failed", "budget_exceeded", "cancelled", "blocked"]),
    })
    .optional(),
  timeoutMs: z.int().positive("必须大于 0").optional(),
});
export type TaskSpec = z.infer<typeof TaskSchema>;

/** 检查的结果：任务本身，或者一条点名文件和字段的中文错误。 */
export type TaskCheck =
  | { readonly ok: true; readonly task: TaskSpec }
  | { readonly ok: false; readonly field: string; readonly message: string };

/**
 * zod 给出的问题路径写成人读的字段名：`goal`、`expect.status`、`forbiddenPaths[0]`；
 * 空路径是整个任务对象本身，写作 `(根)`。
 */
export function fieldName(path: readonly PropertyKey[]): string {
  // #region exercise
  // TODO(lab-31): 现在每个错误都只说“(根)”：读的人不知道该改哪个字段。改成：
  //   - 空路径是整个任务对象，写作 (根)；
  //   - 对象的键用 . 连起来：["expect", "status"] 写作 expect.status；
  //   - 数字是数组下标，写成 [下标] 跟在前面的字段后：["forbiddenPaths", 0] 写作 forbiddenPaths[0]。
  void path;
  return "(根)";
  // #endregion exercise
}

/** args 里第一个由评测框架设置的选项（单独的 `--json`，或带值的 `--workspace=/tmp/x`），没有就是 undefined。 */
export function harnessFlagIn(args: readonly string[]): string | undefined {
  // #region exercise
  // TODO(lab-31): 现在什么都不拦：任务可以用 args 把 --workspace 指到别处、把 --json 关掉。
  // 找出 args 里第一个 HARNESS_FLAGS 里的选项并返回它（原样返回那个参数）：
  //   - 选项可以单独出现（--json），也可以把值写在 = 后面（--workspace=/tmp/x）；
  //   - 只是看起来像的值不算：--model json 里的 json 是模型名，不是选项。
  void args;
  return undefined;
  // #endregion exercise
}

/** 检查一个已解析的 task.json：先按 TaskSchema，再看 args 里有没有评测框架的选项。 */
export function checkTask(file: string, json: unknown): TaskCheck {
  const bad = (field: string, message: string): TaskCheck => ({
    ok: false,
    field,
    message: `任务文件 ${file} 无效：${field}: ${message}`,
  });
  const parsed = TaskSchema.safeParse(json, { error: z.locales.zhCN().localeError });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return issue === undefined ? bad("(根)", "无效") : bad(fieldName(issue.path), issue.message);
  }
  const flag = harnessFlagIn(parsed.data.args ?? []);
  if (flag !== undefined) return bad("args", `${flag} 由评测框架设置，任务不能给`);
  return { ok: true, task: parsed.data };
}
