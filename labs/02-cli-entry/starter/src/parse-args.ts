import { parseArgs } from "node:util";
import { z } from "zod";

/** Shown with every usage error, so the user sees what a valid command looks like. */
export const USAGE = "用法：coding-agent run <任务目标> [--max-steps <正整数>]";

/** Steps a run may take when the command line does not say. */
export const DEFAULT_MAX_STEPS = 20;

const cliArgsSchema = z.object({
  goal: z.string().trim().min(1, { error: "任务目标不能为空" }),
  maxSteps: z
    .string()
    .regex(/^[1-9]\d*$/, { error: "--max-steps 必须是正整数" })
    .transform(Number)
    .optional(),
});

/** What `coding-agent run` was asked to do. */
export interface CliArgs {
  readonly goal: string;
  readonly maxSteps: number;
}

/** The command line understood, or every reason it could not be. */
export type ParseArgsResult =
  | { readonly ok: true; readonly args: CliArgs }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Says in Chinese what node:util's `parseArgs` rejected; its own messages are English. */
function describeFlagError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const flag = /'(-[^' ]*)/.exec(message)?.[1] ?? "";
  const code = (error as { code?: unknown }).code;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `未知选项：${flag}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") return `选项 ${flag} 缺少取值`;
  return message;
}

/** Parses `run <goal> [--max-steps N]`. Never throws: a bad command line is a usage error. */
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
    // node:util reports a bad flag by throwing; at this boundary that is a usage problem.
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
