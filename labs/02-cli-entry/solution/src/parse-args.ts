import { parseArgs } from "node:util";
import { z } from "zod";

/** 每个用法错误都附上它，让用户看到正确的命令长什么样。 */
export const USAGE = "用法：coding-agent run <任务目标> [--max-steps <正整数>]";

/** 命令行没有指定时，一次运行最多可走的步数。 */
export const DEFAULT_MAX_STEPS = 20;

const cliArgsSchema = z.object({
  goal: z.string().trim().min(1, { error: "任务目标不能为空" }),
  maxSteps: z
    .string()
    .regex(/^[1-9]\d*$/, { error: "--max-steps 必须是正整数" })
    .transform(Number)
    .optional(),
});

/** `coding-agent run` 被要求做的事。 */
export interface CliArgs {
  readonly goal: string;
  readonly maxSteps: number;
}

/** 理解了的命令行，或者理解不了的每一个原因。 */
export type ParseArgsResult =
  | { readonly ok: true; readonly args: CliArgs }
  | { readonly ok: false; readonly problems: readonly string[] };

/** 用中文说明 node:util 的 `parseArgs` 拒绝了什么；它自己的消息是英文的。 */
function describeFlagError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const flag = /'(-[^' ]*)/.exec(message)?.[1] ?? "";
  const code = (error as { code?: unknown }).code;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `未知选项：${flag}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") return `选项 ${flag} 缺少取值`;
  return message;
}

/** 解析 `run <goal> [--max-steps N]`。从不抛出：命令行写错是用法错误。 */
export function parseCliArgs(argv: readonly string[]): ParseArgsResult {
  let values: { "max-steps"?: string | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { "max-steps": { type: "string" } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    // node:util 用抛出异常来报告参数错误；在这个边界上，它就是一个用法问题。
    return { ok: false, problems: [describeFlagError(error)] };
  }

  const [command, goal, ...extra] = positionals;
  if (command !== "run") {
    return { ok: false, problems: [command === undefined ? "缺少命令" : `未知命令：${command}`] };
  }
  if (goal === undefined) return { ok: false, problems: ["缺少任务目标"] };
  if (extra.length > 0) return { ok: false, problems: [`多余的参数：${extra.join(" ")}`] };

  const parsed = cliArgsSchema.safeParse({ goal, maxSteps: values["max-steps"] });
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => issue.message) };
  }
  return {
    ok: true,
    args: { goal: parsed.data.goal, maxSteps: parsed.data.maxSteps ?? DEFAULT_MAX_STEPS },
  };
}
