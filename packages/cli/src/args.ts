import path from "node:path";
import {
  DEFAULT_LOOP_WINDOW,
  DEFAULT_MAX_FINISH_REJECTIONS,
  DEFAULT_MAX_OBSERVATION_CHARS,
} from "@coding-agent/agent-core";
import { REASONING_EFFORTS } from "@coding-agent/providers";
import {
  APPROVAL_MODES,
  allowPathProblem,
  MIN_OBSERVATION_BUDGET,
  READABLE_RUNNERS,
  SANDBOX_MODES,
} from "@coding-agent/tools";
import { z } from "zod";
import { parseArgsOrExplain } from "./parse-args.ts";
import { parseTraceArgs, TRACE_FLAGS, type TraceCommand } from "./report/trace-args.ts";
import { RUN_ID_PATTERN } from "./run-files.ts";
import {
  FINISH_GATES,
  PROVIDERS,
  type ProviderName,
  RUN_SPEC_VERSION,
  type RunSpec,
} from "./run-spec.ts";

export { PROVIDERS, type ProviderName } from "./run-spec.ts";

/** Flags of `coding-agent run`, with their Chinese help text. */
export const RUN_FLAGS = {
  "max-steps": { type: "string", help: "最多调用模型的次数（默认 20）" },
  "max-tool-calls": { type: "string", help: "最多执行工具的次数" },
  "max-tokens": { type: "string", help: "token 预算（输入加输出）" },
  "max-duration-ms": { type: "string", help: "总时长预算，毫秒（用完时正在进行的调用也会被中止）" },
  "model-timeout-ms": {
    type: "string",
    help: "单次模型调用的超时，毫秒（超时按 --max-retries 重试，再次超时则运行以超出预算结束）",
  },
  "tool-timeout-ms": {
    type: "string",
    help: "单次工具调用的超时，毫秒（超时作为 timeout 错误交给模型，运行继续）",
  },
  "max-retries": {
    type: "string",
    help: "模型调用可重试的失败（无响应、HTTP 408/429/5xx、单次超时）最多重试几次，指数退避（默认 2，0 为不重试）",
  },
  "max-repeated-actions": {
    type: "string",
    help: "允许连续相同且观察没有变化的动作次数（默认 3）",
  },
  "loop-window": {
    type: "string",
    help: "循环检测回看的工具调用次数（默认 12，至少 2）：其中第 3 次没有新观察的调用，或 2–4 步的循环重复 2 轮，以超出预算结束（loop_detected）",
  },
  "max-context-tokens": {
    type: "string",
    help: "每次模型请求的上下文 token 预算：超出时最早的工具结果压缩成 artifact 引用（read_artifact 可读回）；放不下必须保留的部分时以超出预算结束（context_exhausted）",
  },
  pricing: {
    type: "string",
    help: '价格文件（JSON）：{ "<模型>": { "inputPerMTok", "outputPerMTok", "cachedInputPerMTok"? } }，美元 / 百万 token，优先于内置价格表；Fake Model 的模型名是 fake',
  },
  "max-cost-usd": {
    type: "string",
    help: "成本预算，美元：达到它的那一步之后运行以超出预算结束（max_cost）；需要知道模型的价格",
  },
  "max-tool-errors": { type: "string", help: "工具连续返回错误的次数上限（默认 5，成功一次清零）" },
  "max-observation-chars": {
    type: "string",
    help: "每个工具结果给模型看的最多字符数（默认 8000，至少 1000）；工具在其中分页，并说明下一页怎么取",
  },
  provider: {
    type: "string",
    help: "模型后端：fake（默认，离线脚本）、openai、anthropic（通用接口），或按厂商：deepseek、qwen、kimi、glm、gemini、openrouter（各自的官方地址和密钥变量，如 DEEPSEEK_API_KEY）",
  },
  model: { type: "string", help: "模型名（真实模型必填）" },
  "base-url": {
    type: "string",
    help: "API 地址，否则读后端的地址变量（OPENAI_BASE_URL、DEEPSEEK_BASE_URL…），再否则用官方地址",
  },
  "fallback-model": {
    type: "string",
    help: "备用模型名（只用于真实模型，同一后端）：主模型在 --max-retries + 1 次尝试都以可重试的失败结束后改问它，此后本次运行一直用它；结果和轨迹记下回答的模型",
  },
  "reasoning-effort": {
    type: "string",
    help: "思考强度：none、low、medium、high、max（只用于真实模型），换成各厂商文档里的参数；不给则用厂商的默认",
  },
  quiet: {
    type: "boolean",
    help: "终端上不显示模型边生成边输出的文字和思考过程（结果照常输出）",
  },
  script: { type: "string", help: "Fake Model 脚本文件（JSON 数组），不给则用内置脚本" },
  workspace: { type: "string", help: "工具只能读写的目录（默认当前目录）" },
  "allow-command": {
    type: "string",
    multiple: true,
    help: "run_command 无需批准即可运行的程序名（可重复）",
  },
  approval: {
    type: "string",
    help: "需要批准的调用：ask 询问 · deny 拒绝（blocked）· auto 按策略（默认 ask）",
  },
  sandbox: { type: "string", help: "run_command 的沙箱：auto · bwrap · none（默认 auto）" },
  "test-command": {
    type: "string",
    help:
      "run_tests 运行的测试命令（默认：工作区 package.json 的 test 脚本）。" +
      `读得出通过/失败个数和失败测试名的运行器：${READABLE_RUNNERS}；` +
      "其他命令只看退出码：整个命令以 0 退出算作通过（个数未知），完成验证门也接受它作为当前版本的测试证据",
  },
  "allow-path": {
    type: "string",
    multiple: true,
    help: "编辑可以修改的路径 glob（可重复；默认整个工作区；.git/、node_modules/ 始终不可写）",
  },
  "finish-gate": {
    type: "string",
    help: "完成验证门：auto（默认：有测试命令时为 tests，否则 none；不带 --script 的内置演示不跑测试，不拿 package.json 的 test 脚本检查它）· tests（只有在当前工作区版本上测试全部通过——读不出个数时是整个测试命令以 0 退出——、改动都在 --allow-path 内才接受完成）· none",
  },
  "max-finish-rejections": {
    type: "string",
    help: "完成提议被拒绝多少次后运行以失败结束（默认 3，整个运行累计）",
  },
  "system-prompt-file": {
    type: "string",
    help: "用这个文件的内容替换内置的系统提示（只用于 openai、anthropic；工作区的 AGENTS.md 仍会附在后面）",
  },
  "trust-workspace": {
    type: "boolean",
    help: "信任这个工作区：运行它 .coding-agent/settings.json 里的 hooks 和 MCP 服务器（不加时只有 $CODING_AGENT_HOME/trusted.json 列出的工作区才运行）",
  },
  "mcp-config": {
    type: "string",
    help: 'MCP 服务器配置文件（.mcp.json 格式：{ "mcpServers": { "<名字>": { "command", "args", "env" } 或 { "url" } } }）',
  },
  "allow-tool": {
    type: "string",
    multiple: true,
    help: "无需批准即可调用的 MCP 工具全名（mcp__<服务器>__<工具>，可重复；--approval deny 时只有它们能调用）",
  },
  subagents: {
    type: "string",
    help: "最多同时运行几个子 Agent（默认 0：不提供 spawn_agent；子 Agent 在工作区的隔离副本里运行，预算从本次运行里分出）",
  },
  json: { type: "boolean", help: "以 JSON 输出运行结果" },
  help: { type: "boolean", help: "显示帮助" },
} as const;

/** The commands the CLI knows. */
export const COMMANDS = ["run", "resume", "replay", "runs", "trace", "eval", "help"] as const;

/** More retries than this only make a broken backend slower to report. */
const MAX_RETRIES = 10;

const count = (flag: string) =>
  z
    .string()
    .regex(/^\d+$/, `--${flag} 需要非负整数`)
    .transform(Number)
    .pipe(z.int().max(Number.MAX_SAFE_INTEGER, `--${flag} 太大`));

/** What `--flag value` strings must be; numbers arrive as text from argv. */
const RunFlagsSchema = z.strictObject({
  provider: z
    .enum(PROVIDERS, { error: `--provider 只能是 ${PROVIDERS.join("、")}` })
    .default("fake"),
  model: z.string().trim().min(1, "--model 需要模型名").optional(),
  "base-url": z.string().trim().min(1, "--base-url 需要地址").optional(),
  "fallback-model": z.string().trim().min(1, "--fallback-model 需要模型名").optional(),
  "reasoning-effort": z
    .enum(REASONING_EFFORTS, {
      error: `--reasoning-effort 只能是 ${REASONING_EFFORTS.join("、")}`,
    })
    .optional(),
  quiet: z.boolean().default(false),
  "max-steps": count("max-steps").default(20),
  "max-tool-calls": count("max-tool-calls").optional(),
  "max-tokens": count("max-tokens").optional(),
  "max-duration-ms": count("max-duration-ms").optional(),
  "model-timeout-ms": count("model-timeout-ms")
    .pipe(z.int().min(1, "--model-timeout-ms 至少为 1"))
    .optional(),
  "tool-timeout-ms": count("tool-timeout-ms")
    .pipe(z.int().min(1, "--tool-timeout-ms 至少为 1"))
    .optional(),
  "max-retries": count("max-retries")
    .pipe(z.int().max(MAX_RETRIES, `--max-retries 最多为 ${MAX_RETRIES}`))
    .default(2),
  "max-repeated-actions": count("max-repeated-actions")
    .pipe(z.int().min(1, "--max-repeated-actions 至少为 1"))
    .default(3),
  "loop-window": count("loop-window")
    .pipe(z.int().min(2, "--loop-window 至少为 2"))
    .default(DEFAULT_LOOP_WINDOW),
  "max-context-tokens": count("max-context-tokens")
    .pipe(z.int().min(1, "--max-context-tokens 至少为 1"))
    .optional(),
  "max-tool-errors": count("max-tool-errors")
    .pipe(z.int().min(1, "--max-tool-errors 至少为 1"))
    .optional(),
  "max-observation-chars": count("max-observation-chars")
    .pipe(
      z
        .int()
        .min(
          MIN_OBSERVATION_BUDGET,
          `--max-observation-chars 至少为 ${MIN_OBSERVATION_BUDGET}（再小放不下一页）`,
        ),
    )
    .default(DEFAULT_MAX_OBSERVATION_CHARS),
  script: z.string().min(1, "--script 需要文件路径").optional(),
  pricing: z.string().min(1, "--pricing 需要文件路径").optional(),
  "max-cost-usd": z
    .string()
    .regex(/^\d+(\.\d+)?$/, "--max-cost-usd 需要正数（美元，例如 0.5）")
    .transform(Number)
    .pipe(z.number().positive("--max-cost-usd 必须大于 0").finite("--max-cost-usd 太大"))
    .optional(),
  workspace: z.string().min(1, "--workspace 需要目录路径").default("."),
  "allow-command": z.array(z.string().min(1, "--allow-command 需要程序名")).default([]),
  approval: z
    .enum(APPROVAL_MODES, { error: `--approval 只能是 ${APPROVAL_MODES.join("、")}` })
    .default("ask"),
  sandbox: z
    .enum(SANDBOX_MODES, { error: `--sandbox 只能是 ${SANDBOX_MODES.join("、")}` })
    .default("auto"),
  "test-command": z.string().trim().min(1, "--test-command 需要命令").optional(),
  "allow-path": z
    .array(
      z.string().check((ctx) => {
        const problem = allowPathProblem(ctx.value);
        if (problem !== undefined)
          ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
      }),
    )
    .default([]),
  "finish-gate": z
    .enum(FINISH_GATES, { error: `--finish-gate 只能是 ${FINISH_GATES.join("、")}` })
    .default("auto"),
  "max-finish-rejections": count("max-finish-rejections")
    .pipe(z.int().min(1, "--max-finish-rejections 至少为 1"))
    .default(DEFAULT_MAX_FINISH_REJECTIONS),
  "system-prompt-file": z.string().min(1, "--system-prompt-file 需要文件路径").optional(),
  "trust-workspace": z.boolean().default(false),
  "mcp-config": z.string().min(1, "--mcp-config 需要文件路径").optional(),
  "allow-tool": z.array(z.string().min(1, "--allow-tool 需要工具名")).default([]),
  subagents: count("subagents").default(0),
  json: z.boolean().default(false),
  help: z.boolean().default(false),
});

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
  | RunCommand;

/** `coding-agent run`: the run spec its flags make, and how its result is printed. */
export interface RunCommand {
  readonly kind: "run";
  readonly json: boolean;
  readonly spec: RunSpec;
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
    "  run    运行 Agent（默认离线 Fake Model，或 --provider 指定真实模型）；工具：echo、sleep、read_file、list_files、search、run_command、run_tests、edit_file、write_file、apply_edits（给了 --max-context-tokens 时还有 read_artifact）",
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
    "密钥只从环境变量读取：OPENAI_API_KEY、ANTHROPIC_API_KEY（没有命令行选项）",
    "运行记录（state.jsonl、trace.jsonl、artifacts/）写在 $CODING_AGENT_HOME/runs/<runId>/（默认 ~/.coding-agent），不写进工作区",
    "设置 OTEL_EXPORTER_OTLP_ENDPOINT（或 OTEL_EXPORTER_OTLP_TRACES_ENDPOINT）时，轨迹同时以 OpenTelemetry GenAI span 经 OTLP/HTTP 导出；OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true 才带消息内容（脱敏）",
    "退出码：0 完成 · 1 失败 · 2 用法错误 · 3 超出预算 · 4 被阻止 · 130 已取消",
  ].join("\n");
}

/** Parses argv (without node and the script) with `util.parseArgs`, then validates with zod. */
export function parseCliArgs(argv: readonly string[]): CliArgsResult {
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
  const flags = RunFlagsSchema.safeParse(parsed.values);
  if (!flags.success) {
    return bad(flags.error.issues.map((issue) => issue.message).join("；"));
  }
  if (flags.data.help) return { ok: true, command: { kind: "help" } };
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
  return {
    ok: true,
    command: {
      kind: "run",
      json: f.json,
      spec: {
        version: RUN_SPEC_VERSION,
        goal,
        limits: {
          maxSteps: f["max-steps"],
          maxRepeatedActions: f["max-repeated-actions"],
          ...(f["max-tool-calls"] === undefined ? {} : { maxToolCalls: f["max-tool-calls"] }),
          ...(f["max-tokens"] === undefined ? {} : { maxTokens: f["max-tokens"] }),
          ...(f["max-duration-ms"] === undefined ? {} : { maxDurationMs: f["max-duration-ms"] }),
          ...(f["model-timeout-ms"] === undefined ? {} : { modelTimeoutMs: f["model-timeout-ms"] }),
          ...(f["tool-timeout-ms"] === undefined ? {} : { toolTimeoutMs: f["tool-timeout-ms"] }),
          ...(f["max-tool-errors"] === undefined ? {} : { maxToolErrors: f["max-tool-errors"] }),
        },
        loopWindow: f["loop-window"],
        ...(f["max-context-tokens"] === undefined
          ? {}
          : { maxContextTokens: f["max-context-tokens"] }),
        retries: f["max-retries"],
        maxObservationChars: f["max-observation-chars"],
        ...(f.script === undefined ? {} : { scriptPath: f.script }),
        ...(f.pricing === undefined ? {} : { pricingPath: path.resolve(f.pricing) }),
        ...(f["max-cost-usd"] === undefined ? {} : { maxCostUsd: f["max-cost-usd"] }),
        provider: {
          name: f.provider,
          ...(f.model === undefined ? {} : { model: f.model }),
          ...(f["base-url"] === undefined ? {} : { baseUrl: f["base-url"] }),
          ...(f["fallback-model"] === undefined ? {} : { fallbackModel: f["fallback-model"] }),
          ...(f["reasoning-effort"] === undefined
            ? {}
            : { reasoningEffort: f["reasoning-effort"] }),
        },
        ...(f.quiet ? { quiet: true } : {}),
        workspace: f.workspace,
        allowCommands: f["allow-command"],
        approval: f.approval,
        sandbox: f.sandbox,
        ...(f["test-command"] === undefined ? {} : { testCommand: f["test-command"] }),
        allowPaths: f["allow-path"],
        finishGate: f["finish-gate"],
        maxFinishRejections: f["max-finish-rejections"],
        ...(f["system-prompt-file"] === undefined
          ? {}
          : { systemPromptFile: path.resolve(f["system-prompt-file"]) }),
        ...(f["trust-workspace"] ? { trustWorkspace: true } : {}),
        ...(f["mcp-config"] === undefined ? {} : { mcpConfig: path.resolve(f["mcp-config"]) }),
        ...(f["allow-tool"].length === 0 ? {} : { allowTools: f["allow-tool"] }),
        ...(f.subagents === 0 ? {} : { subagents: f.subagents }),
      },
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
  const options = Object.fromEntries(
    Object.entries(RUN_FLAGS).map(([name, flag]) => [
      name,
      { type: flag.type, multiple: "multiple" in flag },
    ]),
  ) as {
    [K in keyof typeof RUN_FLAGS]: {
      type: (typeof RUN_FLAGS)[K]["type"];
      multiple: (typeof RUN_FLAGS)[K] extends { multiple: true } ? true : false;
    };
  };
  return parseArgsOrExplain({ args: [...args], options, allowPositionals: true, strict: true });
}

/** A flag that means nothing for the chosen backend is a mistake, not something to ignore. */
function providerMismatch(
  provider: ProviderName,
  flags: {
    readonly model?: string;
    readonly "base-url"?: string;
    readonly "fallback-model"?: string;
    readonly "reasoning-effort"?: string;
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
