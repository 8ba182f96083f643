import { parseArgsOrExplain } from "./parse-args.ts";
import { describeConfig } from "./print-config.ts";
import { parseTraceArgs, TRACE_FLAGS, type TraceCommand } from "./report/trace-args.ts";
import { applicableDefaults, NO_RUN_DEFAULTS, type RunDefaults } from "./run-defaults.ts";
import { RUN_ID_PATTERN } from "./run-files.ts";
import { RUN_FLAGS, RUN_PARSE_OPTIONS, RunFlagsSchema, runSpecOf } from "./run-flags.ts";
import type { ProviderName, RunSpec } from "./run-spec.ts";

export { PROVIDERS, type ProviderName } from "./run-spec.ts";

/** The commands the CLI knows. */
export const COMMANDS = ["run", "resume", "replay", "runs", "trace", "eval", "help"] as const;

/** A parsed command line. */
export type CliCommand =
  | { readonly kind: "help" }
  | { readonly kind: "runs"; readonly json: boolean }
  | { readonly kind: "resume"; readonly runId: string; readonly json: boolean }
  | TraceCommand
  /** `eval …`: the arguments after `eval`, parsed by @coding-agent/eval. */
  | { readonly kind: "eval"; readonly argv: readonly string[] }
  /** `replay <runId | state.jsonl>`: a run id, or the path of a state log. */
  | { readonly kind: "replay"; readonly target: string; readonly json: boolean }
  /** `run --print-config`: each flag's value and where it came from, printed instead of a run. */
  | { readonly kind: "print-config"; readonly text: string }
  | RunCommand;

/** `coding-agent run`: the run spec its flags make, and how its result is printed. */
export interface RunCommand {
  readonly kind: "run";
  readonly json: boolean;
  readonly spec: RunSpec;
  /** `--run-id`: the new run's id, chosen by the caller (an eval harness); generated otherwise. */
  readonly runId?: string;
}

/** The outcome of `parseCliArgs`: a command, or a Chinese usage message (exit 2). */
export type CliArgsResult =
  | { readonly ok: true; readonly command: CliCommand }
  | { readonly ok: false; readonly message: string };

/** Usage text listing every command and flag. */
export function usage(): string {
  const flags = Object.entries(RUN_FLAGS).map(([name, flag]) => {
    const left = flag.type === "string" ? `--${name} <值>` : `--${name}`;
    return `  ${left.padEnd(30)}${flag.help}`;
  });
  return [
    '用法：coding-agent run "<目标>" [选项]',
    "      coding-agent resume <runId> [--json]",
    "      coding-agent replay <runId | state.jsonl> [--json]",
    "      coding-agent runs [--json]",
    "",
    "命令：",
    "  run    运行 Agent（默认离线 Fake Model，或 --provider 指定真实模型）；工具：echo、sleep、read_file、list_files、search、run_command、run_tests、edit_file、write_file、apply_edits；run_command、run_tests 的输出超出观察预算时完整地存成 artifact，之后还有 read_artifact 分页读它",
    "  resume 继续一次没有结束的运行（沿用它记录的选项和已用掉的预算；已结束的运行不能继续）",
    "  replay 离线重放一次已结束的运行：用记录的模型回复和工具结果重新走一遍循环（不联网、不执行工具），输出同样的结果、同样退出；今天的运行时做出不同决定时以 replay_diverged 结束（退出码 1），指出第一条不一致记录的 seq",
    "  runs   列出运行记录（运行 ID、开始时间、目标、状态），最新的在前",
    "  eval   评测：在任务集的每个任务上运行 Agent 并评分（coding-agent eval --help 看选项）",
    "  trace  一次运行的报告：步骤、工具调用、用时、token、费用、被拒的完成、状态（报告生成即退出码 0）",
    "  help   显示帮助",
    "",
    "选项：",
    ...flags,
    "",
    "trace 的选项：",
    ...Object.entries(TRACE_FLAGS).map(([name, flag]) => {
      const left = flag.type === "string" ? `--${name} <文件>` : `--${name}`;
      return `  ${left.padEnd(30)}${flag.help}`;
    }),
    "",
    "密钥只从环境变量读取：OPENAI_API_KEY、ANTHROPIC_API_KEY 或各厂商的变量，--api-key-env 可以换一个变量名（密钥本身没有命令行选项）",
    '默认值：$CODING_AGENT_HOME/settings.json 的 run 对象（键是上面的选项名，不带 --，如 { "run": { "provider": "deepseek", "max-steps": 40 } }）；受信任工作区的 .coding-agent/settings.json 的 run 盖在它上面，但不能设 provider、base-url、api-key-env、approval；命令行再盖在两者上面。用 Fake Model（--provider fake，或给了 --script 而没给 --provider）时不取真实模型的设置。run --print-config 列出每个选项的取值和来源',
    "运行记录（state.jsonl、trace.jsonl、artifacts/）写在 $CODING_AGENT_HOME/runs/<runId>/（默认 ~/.coding-agent），不写进工作区",
    "设置 OTEL_EXPORTER_OTLP_ENDPOINT（或 OTEL_EXPORTER_OTLP_TRACES_ENDPOINT）时，轨迹同时以 OpenTelemetry GenAI span 经 OTLP/HTTP 导出；OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true 才带消息内容（脱敏）",
    "退出码：0 完成 · 1 失败 · 2 用法错误 · 3 超出预算 · 4 被阻止 · 130 已取消",
  ].join("\n");
}

/**
 * Parses argv (without node and the script) with `util.parseArgs`, then validates with zod.
 * `defaults` (from the settings files, `run-defaults.ts`) fill in the flags of `run` the
 * command line leaves out, and are validated as if they had been typed.
 */
export function parseCliArgs(
  argv: readonly string[],
  defaults: RunDefaults = NO_RUN_DEFAULTS,
): CliArgsResult {
  const [command, ...rest] = argv;
  // No command is a usage mistake (exit 2), not a request for help (exit 0).
  if (command === undefined) return bad(`缺少命令。可用命令：${COMMANDS.join("、")}`);
  if (command === "help" || command === "--help" || command === "-h") {
    return { ok: true, command: { kind: "help" } };
  }
  if (command === "runs" || command === "resume" || command === "replay")
    return parseRunsArgs(command, rest);
  if (command === "eval") return { ok: true, command: { kind: "eval", argv: rest } };
  if (command === "trace") {
    const trace = parseTraceArgs(rest);
    return trace.ok ? trace : bad(trace.message);
  }
  if (command !== "run") {
    return bad(`未知命令：${command}。可用命令：${COMMANDS.join("、")}`);
  }
  const result = parseRunArgs(rest);
  if (!result.ok) {
    const known = Object.keys(RUN_FLAGS).map((name) => `--${name}`);
    return bad(`${result.message}。可用选项：${known.join("、")}`);
  }
  const parsed = result.parsed;
  const given: Readonly<Record<string, unknown>> = parsed.values;
  const settings = applicableDefaults(given, defaults);
  const flags = RunFlagsSchema.safeParse({ ...settings.values, ...given });
  if (!flags.success) {
    const messages = flags.error.issues.map((issue) => {
      // A value from a settings file is named there, or the user looks for it on the command line.
      const name = String(issue.path[0] ?? "");
      const origin =
        name in given ? undefined : settings.origins[name as keyof RunDefaults["origins"]];
      return origin === undefined ? issue.message : `${issue.message}（来自 ${origin}）`;
    });
    return bad(messages.join("；"));
  }
  if (flags.data.help) return { ok: true, command: { kind: "help" } };
  if (flags.data["print-config"]) {
    const text = describeConfig(flags.data, given, settings, flags.data.json);
    return { ok: true, command: { kind: "print-config", text } };
  }
  if (parsed.positionals.length !== 1) {
    return bad(
      parsed.positionals.length === 0
        ? '缺少目标：coding-agent run "<目标>"'
        : `只能给一个目标（用引号括起来），收到 ${parsed.positionals.length} 个：${parsed.positionals.join(" ")}`,
    );
  }
  const goal = parsed.positionals[0]?.trim() ?? "";
  if (goal.length === 0) return bad("目标不能为空");
  const f = flags.data;
  const mismatch = providerMismatch(f.provider, f);
  if (mismatch !== undefined) return bad(mismatch);
  const runId = f["run-id"];
  return {
    ok: true,
    command: {
      kind: "run",
      json: f.json,
      spec: runSpecOf(goal, f),
      ...(runId === undefined ? {} : { runId }),
    },
  };
}

/** `runs [--json]` and `resume <runId> [--json]`. */
function parseRunsArgs(
  command: "runs" | "resume" | "replay",
  args: readonly string[],
): CliArgsResult {
  const result = parseArgsOrExplain({
    args: [...args],
    options: { json: { type: "boolean" }, help: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (!result.ok) return bad(`${result.message}。${command} 只接受 --json`);
  const { values, positionals } = result.parsed;
  if (values.help === true) return { ok: true, command: { kind: "help" } };
  const json = values.json === true;
  if (command === "runs") {
    if (positionals.length > 0) return bad(`runs 不接受参数，收到：${positionals.join(" ")}`);
    return { ok: true, command: { kind: "runs", json } };
  }
  if (command === "replay") {
    const target = positionals[0]?.trim() ?? "";
    if (positionals.length !== 1 || target === "")
      return bad(
        "用法：coding-agent replay <runId | state.jsonl 的路径>（运行 ID 见 coding-agent runs）",
      );
    return { ok: true, command: { kind: "replay", target, json } };
  }
  if (positionals.length !== 1)
    return bad("用法：coding-agent resume <runId>（运行 ID 见 coding-agent runs）");
  const runId = positionals[0] ?? "";
  if (!RUN_ID_PATTERN.test(runId)) return bad(`不是有效的运行 ID：${JSON.stringify(runId)}`);
  return { ok: true, command: { kind: "resume", runId, json } };
}

function parseRunArgs(args: readonly string[]) {
  return parseArgsOrExplain({
    args: [...args],
    options: RUN_PARSE_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
}

/** A flag that means nothing for the chosen backend is a mistake, not something to ignore. */
function providerMismatch(
  provider: ProviderName,
  flags: {
    readonly model?: string;
    readonly "base-url"?: string;
    readonly "fallback-model"?: string;
    readonly "reasoning-effort"?: string;
    readonly "api-key-env"?: string;
    readonly script?: string;
    readonly "system-prompt-file"?: string;
  },
): string | undefined {
  if (provider === "fake") {
    const real = "只用于真实模型（--provider openai、anthropic、deepseek 等）";
    if (flags.model !== undefined) return `--model ${real}`;
    if (flags["base-url"] !== undefined) return `--base-url ${real}`;
    if (flags["fallback-model"] !== undefined) return `--fallback-model ${real}`;
    if (flags["reasoning-effort"] !== undefined) return `--reasoning-effort ${real}`;
    if (flags["api-key-env"] !== undefined) return `--api-key-env ${real}`;
    if (flags["system-prompt-file"] !== undefined)
      return `--system-prompt-file ${real}（Fake Model 不读系统提示）`;
    return undefined;
  }
  if (flags.script !== undefined)
    return `--script 只用于 --provider fake，不能和 ${provider} 一起用`;
  return undefined;
}

function bad(message: string): CliArgsResult {
  return { ok: false, message: `${message}\n\n${usage()}` };
}
