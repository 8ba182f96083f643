import type { z } from "zod";
import { type Task, taskSchema } from "./task-schema.ts";

/** 任务里的一处错误：在哪里（字段路径），是什么（中文说明）。 */
export interface TaskProblem {
  /** `goal`, `budgets.maxSteps`, `constraints[1]`; `(根)` for the task itself. */
  readonly path: string;
  readonly message: string;
}

/** 解析任务的结果：任务本身，或者其中找到的每一个问题。 */
export type TaskParseResult =
  | { readonly ok: true; readonly task: Task }
  | { readonly ok: false; readonly problems: readonly TaskProblem[] };

/** 把 zod 问题的路径写成人会敲出来的样子：`budgets.maxSteps`、`constraints[1]`。 */
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
 * 把一个来历不明的值（已经从 JSON 解析出来）校验为任务。输入有误时从不抛出：有三处错误的任务会带着
 * 三个问题返回，作者一次就能改完，而不是每运行一次改一处。
 */
export function parseTask(input: unknown): TaskParseResult {
  // 用 safeParse 而不是 parse：任务写错是预料之中的结果，不是崩溃。
  const parsed = taskSchema.safeParse(input);
  if (parsed.success) return { ok: true, task: parsed.data };
  // #region exercise
  // TODO(lab-01): zod 已经检查了全部字段，parsed.error.issues 里是它找到的所有问题。
  // 现在只把第一个问题交给用户：改成把每一个 issue 都转成 TaskProblem，并保持 zod 给出的顺序。
  const first = parsed.error.issues[0];
  const problems = first === undefined ? [] : [toProblem(first)];
  // #endregion exercise
  return { ok: false, problems };
}

/** 解析任务文件的文本：解析不了的 JSON 也只是多一个问题，不抛出。 */
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
