import type { ParseArgsConfig } from "node:util";
import { parseArgsOrExplain } from "@coding-agent/cli/parse-args";
import { EXIT_CODES } from "../tool-output.ts";
import type { LearnerContext } from "./learner-context.ts";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** The subcommands of `pnpm lesson`. */
export const LESSON_ACTIONS = ["hint", "reset", "diff", "watch"] as const;
export type LessonAction = (typeof LESSON_ACTIONS)[number];

/** Usage of `pnpm lesson`, in Chinese. */
export const LESSON_USAGE = [
  "用法：pnpm lesson <命令> <课程编号> [--yes]",
  "  hint NN    针对第一个失败的测试给出下一条提示",
  "  reset NN   把 starter 恢复为提交时的状态（先备份你的文件；--yes 跳过确认）",
  "  diff NN    对比你的 starter 与参考答案：会显示答案，先问你确认（--yes 跳过确认）",
  "  watch NN   保存即重跑本课测试，并在结果下给出提示",
  "课程编号可以写 5、05 或 05-minimal-agent-loop。",
].join("\n");

/** Usage of `pnpm lessons`, in Chinese. */
export const LESSONS_USAGE = [
  "用法：pnpm lessons [--json] [--no-cache]",
  "  按周列出所有课程和你的进度，并指出下一课；--json 输出给工具读取的 JSON。",
  "  只重新运行上次之后有改动的课（课程、总项目或 lab-kit 的文件变了）；--no-cache 全部重新运行。",
].join("\n");

/** Parsed command line, or a Chinese message for a usage error (exit code 2). */
export type ParsedArgs<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string }
  | { readonly ok: "help" };

/**
 * Answers what needs no further work: `--help` (the usage on stdout, exit 0) and a usage
 * error (the message on stderr, exit 2). Otherwise the parsed command line.
 */
export function answerUsage<T>(
  args: ParsedArgs<T>,
  usage: string,
  output: Pick<LearnerContext, "stdout" | "stderr">,
): { readonly value: T } | { readonly exitCode: number } {
  if (args.ok === "help") {
    output.stdout.write(`${usage}\n`);
    return { exitCode: EXIT_CODES.ok };
  }
  if (!args.ok) {
    output.stderr.write(`${args.message}\n`);
    return { exitCode: EXIT_CODES.usage };
  }
  return { value: args.value };
}

function parse<const O extends OptionsConfig>(argv: readonly string[], options: O) {
  return parseArgsOrExplain({
    // `pnpm lessons -- --json` passes the separator through; it carries no meaning here.
    args: argv[0] === "--" ? argv.slice(1) : [...argv],
    options,
    allowPositionals: true,
    strict: true,
  });
}

/** A usage error: the message, then the usage. */
function usageError(
  message: string,
  usage: string,
): { readonly ok: false; readonly message: string } {
  return { ok: false, message: `${message}\n${usage}` };
}

/** Parses the arguments of `pnpm lessons`. */
export function parseLessonsArgs(
  argv: readonly string[],
): ParsedArgs<{ readonly json: boolean; readonly cache: boolean }> {
  const result = parse(argv, {
    json: { type: "boolean", default: false },
    "no-cache": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (!result.ok) return usageError(`${result.message}。`, LESSONS_USAGE);
  const { values, positionals } = result.parsed;
  if (values.help === true) return { ok: "help" };
  if (positionals.length > 0) {
    return usageError(`pnpm lessons 不接受参数「${positionals.join(" ")}」。`, LESSONS_USAGE);
  }
  return { ok: true, value: { json: values.json === true, cache: values["no-cache"] !== true } };
}

function isAction(word: string): word is LessonAction {
  return (LESSON_ACTIONS as readonly string[]).includes(word);
}

/** Parses the arguments of `pnpm lesson <action> <NN>`; the lesson as typed (resolved later). */
export function parseLessonArgs(
  argv: readonly string[],
): ParsedArgs<{ readonly action: LessonAction; readonly lesson: string; readonly yes: boolean }> {
  const result = parse(argv, {
    yes: { type: "boolean", short: "y", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (!result.ok) return usageError(`${result.message}。`, LESSON_USAGE);
  const { values, positionals } = result.parsed;
  if (values.help === true) return { ok: "help" };
  const [action, lesson, ...rest] = positionals;
  if (action === undefined) return usageError("缺少命令。", LESSON_USAGE);
  if (!isAction(action)) {
    const known = LESSON_ACTIONS.join("、");
    return usageError(`未知命令「${action}」，可用的命令：${known}。`, LESSON_USAGE);
  }
  if (lesson === undefined) return usageError("缺少课程编号。", LESSON_USAGE);
  if (rest.length > 0) return usageError(`多余的参数「${rest.join(" ")}」。`, LESSON_USAGE);
  if (values.yes === true && action !== "reset" && action !== "diff") {
    return usageError("--yes 只用于 reset 和 diff。", LESSON_USAGE);
  }
  return { ok: true, value: { action, lesson, yes: values.yes === true } };
}
