import { parseArgsOrExplain } from "../parse-args.ts";

/** `coding-agent trace <runId | trace.jsonl> [--html <file>] [--atif <file>] [--json]` (docs/contracts.md §7, Report). */
export interface TraceCommand {
  readonly kind: "trace";
  /** A run id (looked up under `$CODING_AGENT_HOME/runs/`) or a path to a trace file. */
  readonly target: string;
  /** Where to write the HTML page, when asked. */
  readonly html?: string;
  /** Print the report's data as JSON instead of the terminal text. */
  readonly json: boolean;
  /** Where to write the run as an ATIF trajectory, when asked. */
  readonly atif?: string;
}

/** The flags of `trace`, with their Chinese help text. */
export const TRACE_FLAGS = {
  html: { type: "string", help: "另外写一个自包含的 HTML 报告到这个文件（不联网，内联样式）" },
  json: { type: "boolean", help: "以 JSON 输出报告数据（代替终端文本）" },
  atif: {
    type: "string",
    help: "另外把运行写成 ATIF 轨迹文件（Harbor 等评测框架读的交换格式，v1.4）",
  },
  help: { type: "boolean", help: "显示帮助" },
} as const;

/** Parses the arguments after `trace`; a Chinese message for a usage error (exit 2). */
export function parseTraceArgs(
  args: readonly string[],
):
  | { readonly ok: true; readonly command: TraceCommand | { readonly kind: "help" } }
  | { readonly ok: false; readonly message: string } {
  const result = parseArgsOrExplain({
    args: [...args],
    options: {
      html: { type: TRACE_FLAGS.html.type },
      json: { type: TRACE_FLAGS.json.type },
      atif: { type: TRACE_FLAGS.atif.type },
      help: { type: TRACE_FLAGS.help.type },
    },
    allowPositionals: true,
    strict: true,
  });
  if (!result.ok)
    return {
      ok: false,
      message: `${result.message}。trace 只接受 --html <文件>、--atif <文件>、--json`,
    };
  const { values, positionals } = result.parsed;
  if (values.help === true) return { ok: true, command: { kind: "help" } };
  if (positionals.length !== 1) {
    return {
      ok: false,
      message:
        positionals.length === 0
          ? "用法：coding-agent trace <runId | trace.jsonl 的路径>（运行 ID 见 coding-agent runs）"
          : `trace 只接受一个运行 ID 或文件，收到 ${positionals.length} 个：${positionals.join(" ")}`,
    };
  }
  const target = positionals[0]?.trim() ?? "";
  if (target === "") return { ok: false, message: "运行 ID 或 trace 文件路径不能为空" };
  const html = values.html?.trim();
  if (html === "") return { ok: false, message: "--html 需要文件路径" };
  const atif = values.atif?.trim();
  if (atif === "") return { ok: false, message: "--atif 需要文件路径" };
  return {
    ok: true,
    command: {
      kind: "trace",
      target,
      ...(html === undefined ? {} : { html }),
      ...(atif === undefined ? {} : { atif }),
      json: values.json === true,
    },
  };
}
