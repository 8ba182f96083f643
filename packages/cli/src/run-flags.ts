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
import { RUN_ID_PATTERN } from "./run-files.ts";
import {
  ENV_VARIABLE_NAME,
  FINISH_GATES,
  PROVIDERS,
  RUN_SPEC_VERSION,
  type RunSpec,
  RunSpecSchema,
} from "./run-spec.ts";

/** A piece of a run spec one flag contributes; undefined values leave the field out. */
type SpecPart = Readonly<Record<string, unknown>>;

/**
 * One flag of `coding-agent run`, written once: how `util.parseArgs` reads it, its Chinese
 * help text, what its text must be (zod, with its default), and where its value goes in the
 * run spec (none for `--json` and `--help`, which are not how a run is built).
 */
interface RunFlag<Type extends "string" | "boolean", Schema extends z.ZodType> {
  readonly type: Type;
  readonly multiple?: true;
  readonly help: string;
  readonly schema: Schema;
  readonly spec?: (value: z.output<Schema>) => SpecPart;
}

function flag<const Type extends "string" | "boolean", Schema extends z.ZodType>(
  definition: RunFlag<Type, Schema>,
): RunFlag<Type, Schema> {
  return definition;
}

/** More retries than this only make a broken backend slower to report. */
const MAX_RETRIES = 10;

const count = (flag: string) =>
  z
    .string()
    .regex(/^\d+$/, `--${flag} 需要非负整数`)
    .transform(Number)
    .pipe(z.int().max(Number.MAX_SAFE_INTEGER, `--${flag} 太大`));

/** Flags of `coding-agent run`, in the order the help lists them. */
export const RUN_FLAGS = {
  "max-steps": flag({
    type: "string",
    help: "最多调用模型的次数（默认 20）",
    schema: count("max-steps").default(20),
    spec: (value) => ({ limits: { maxSteps: value } }),
  }),
  "max-tool-calls": flag({
    type: "string",
    help: "最多执行工具的次数",
    schema: count("max-tool-calls").optional(),
    spec: (value) => ({ limits: { maxToolCalls: value } }),
  }),
  "max-tokens": flag({
    type: "string",
    help: "token 预算（输入加输出）",
    schema: count("max-tokens").optional(),
    spec: (value) => ({ limits: { maxTokens: value } }),
  }),
  "max-duration-ms": flag({
    type: "string",
    help: "总时长预算，毫秒（用完时正在进行的调用也会被中止）",
    schema: count("max-duration-ms").optional(),
    spec: (value) => ({ limits: { maxDurationMs: value } }),
  }),
  "model-timeout-ms": flag({
    type: "string",
    help: "单次模型调用的超时，毫秒（超时按 --max-retries 重试，再次超时则运行以超出预算结束）",
    schema: count("model-timeout-ms")
      .pipe(z.int().min(1, "--model-timeout-ms 至少为 1"))
      .optional(),
    spec: (value) => ({ limits: { modelTimeoutMs: value } }),
  }),
  "tool-timeout-ms": flag({
    type: "string",
    help: "单次工具调用的超时，毫秒（超时作为 timeout 错误交给模型，运行继续）",
    schema: count("tool-timeout-ms").pipe(z.int().min(1, "--tool-timeout-ms 至少为 1")).optional(),
    spec: (value) => ({ limits: { toolTimeoutMs: value } }),
  }),
  "max-retries": flag({
    type: "string",
    help: "模型调用可重试的失败（无响应、HTTP 408/429/5xx、单次超时）最多重试几次，指数退避（默认 2，0 为不重试）",
    schema: count("max-retries")
      .pipe(z.int().max(MAX_RETRIES, `--max-retries 最多为 ${MAX_RETRIES}`))
      .default(2),
    spec: (value) => ({ retries: value }),
  }),
  "max-repeated-actions": flag({
    type: "string",
    help: "允许连续相同且观察没有变化的动作次数（默认 3）",
    schema: count("max-repeated-actions")
      .pipe(z.int().min(1, "--max-repeated-actions 至少为 1"))
      .default(3),
    spec: (value) => ({ limits: { maxRepeatedActions: value } }),
  }),
  "loop-window": flag({
    type: "string",
    help: "循环检测回看的工具调用次数（默认 12，至少 2）：其中第 3 次没有新观察的调用，或 2–4 步的循环重复 2 轮，以超出预算结束（loop_detected）",
    schema: count("loop-window")
      .pipe(z.int().min(2, "--loop-window 至少为 2"))
      .default(DEFAULT_LOOP_WINDOW),
    spec: (value) => ({ loopWindow: value }),
  }),
  "max-context-tokens": flag({
    type: "string",
    help: "每次模型请求的上下文 token 预算：超出时最早的工具结果压缩成 artifact 引用（read_artifact 可读回）；放不下必须保留的部分时以超出预算结束（context_exhausted）",
    schema: count("max-context-tokens")
      .pipe(z.int().min(1, "--max-context-tokens 至少为 1"))
      .optional(),
    spec: (value) => ({ maxContextTokens: value }),
  }),
  pricing: flag({
    type: "string",
    help: '价格文件（JSON）：{ "<模型>": { "inputPerMTok", "outputPerMTok", "cachedInputPerMTok"? } }，美元 / 百万 token，优先于内置价格表；Fake Model 的模型名是 fake',
    schema: z.string().min(1, "--pricing 需要文件路径").optional(),
    spec: (value) => ({ pricingPath: value === undefined ? undefined : path.resolve(value) }),
  }),
  "max-cost-usd": flag({
    type: "string",
    help: "成本预算，美元：达到它的那一步之后运行以超出预算结束（max_cost）；需要知道模型的价格",
    schema: z
      .string()
      .regex(/^\d+(\.\d+)?$/, "--max-cost-usd 需要正数（美元，例如 0.5）")
      .transform(Number)
      .pipe(z.number().positive("--max-cost-usd 必须大于 0").finite("--max-cost-usd 太大"))
      .optional(),
    spec: (value) => ({ maxCostUsd: value }),
  }),
  "max-tool-errors": flag({
    type: "string",
    help: "工具连续返回错误的次数上限（默认 5，成功一次清零）",
    schema: count("max-tool-errors").pipe(z.int().min(1, "--max-tool-errors 至少为 1")).optional(),
    spec: (value) => ({ limits: { maxToolErrors: value } }),
  }),
  "max-observation-chars": flag({
    type: "string",
    help: "每个工具结果给模型看的最多字符数（默认 8000，至少 1000）；工具在其中分页，并说明下一页怎么取",
    schema: count("max-observation-chars")
      .pipe(
        z
          .int()
          .min(
            MIN_OBSERVATION_BUDGET,
            `--max-observation-chars 至少为 ${MIN_OBSERVATION_BUDGET}（再小放不下一页）`,
          ),
      )
      .default(DEFAULT_MAX_OBSERVATION_CHARS),
    spec: (value) => ({ maxObservationChars: value }),
  }),
  provider: flag({
    type: "string",
    help: "模型后端：fake（默认，离线脚本）、openai、anthropic（通用接口），或按厂商：deepseek、qwen、kimi、glm、gemini、openrouter（各自的官方地址和密钥变量，如 DEEPSEEK_API_KEY）",
    schema: z
      .enum(PROVIDERS, { error: `--provider 只能是 ${PROVIDERS.join("、")}` })
      .default("fake"),
    spec: (value) => ({ provider: { name: value } }),
  }),
  model: flag({
    type: "string",
    help: "模型名（真实模型必填）",
    schema: z.string().trim().min(1, "--model 需要模型名").optional(),
    spec: (value) => ({ provider: { model: value } }),
  }),
  "base-url": flag({
    type: "string",
    help: "API 地址，否则读后端的地址变量（OPENAI_BASE_URL、DEEPSEEK_BASE_URL…），再否则用官方地址",
    schema: z.string().trim().min(1, "--base-url 需要地址").optional(),
    spec: (value) => ({ provider: { baseUrl: value } }),
  }),
  "api-key-env": flag({
    type: "string",
    help: "从哪个环境变量读密钥（只用于真实模型；默认按后端，如 DEEPSEEK_API_KEY）：给的是变量名，密钥本身仍然只在环境变量里",
    schema: z
      .string()
      .regex(
        ENV_VARIABLE_NAME,
        "--api-key-env 需要环境变量名（字母、数字、下划线，不以数字开头），不是密钥本身",
      )
      .optional(),
    spec: (value) => ({ provider: { keyVariable: value } }),
  }),
  "fallback-model": flag({
    type: "string",
    help: "备用模型名（只用于真实模型，同一后端）：主模型在 --max-retries + 1 次尝试都以可重试的失败结束后改问它，此后本次运行一直用它；结果和轨迹记下回答的模型",
    schema: z.string().trim().min(1, "--fallback-model 需要模型名").optional(),
    spec: (value) => ({ provider: { fallbackModel: value } }),
  }),
  "reasoning-effort": flag({
    type: "string",
    help: "思考强度：none、low、medium、high、max（只用于真实模型），换成各厂商文档里的参数；不给则用厂商的默认",
    schema: z
      .enum(REASONING_EFFORTS, {
        error: `--reasoning-effort 只能是 ${REASONING_EFFORTS.join("、")}`,
      })
      .optional(),
    spec: (value) => ({ provider: { reasoningEffort: value } }),
  }),
  quiet: flag({
    type: "boolean",
    help: "终端上不显示模型边生成边输出的文字和思考过程（结果照常输出）",
    schema: z.boolean().default(false),
    spec: (value) => ({ quiet: value || undefined }),
  }),
  script: flag({
    type: "string",
    help: "Fake Model 脚本文件（JSON 数组），不给则用内置脚本",
    schema: z.string().min(1, "--script 需要文件路径").optional(),
    spec: (value) => ({ scriptPath: value }),
  }),
  workspace: flag({
    type: "string",
    help: "工具只能读写的目录（默认当前目录）",
    schema: z.string().min(1, "--workspace 需要目录路径").default("."),
    spec: (value) => ({ workspace: value }),
  }),
  "allow-command": flag({
    type: "string",
    multiple: true,
    help: "run_command 无需批准即可运行的程序名（可重复）",
    schema: z.array(z.string().min(1, "--allow-command 需要程序名")).default([]),
    spec: (value) => ({ allowCommands: value }),
  }),
  approval: flag({
    type: "string",
    help: "需要批准的调用：ask 询问 · deny 拒绝（blocked）· auto 按策略（默认 ask）",
    schema: z
      .enum(APPROVAL_MODES, { error: `--approval 只能是 ${APPROVAL_MODES.join("、")}` })
      .default("ask"),
    spec: (value) => ({ approval: value }),
  }),
  sandbox: flag({
    type: "string",
    help: "run_command 的沙箱：auto · bwrap · none（默认 auto）",
    schema: z
      .enum(SANDBOX_MODES, { error: `--sandbox 只能是 ${SANDBOX_MODES.join("、")}` })
      .default("auto"),
    spec: (value) => ({ sandbox: value }),
  }),
  "test-command": flag({
    type: "string",
    help:
      "run_tests 运行的测试命令（默认：工作区 package.json 的 test 脚本）。" +
      `读得出通过/失败个数和失败测试名的运行器：${READABLE_RUNNERS}；` +
      "其他命令只看退出码：整个命令以 0 退出算作通过（个数未知），完成验证门也接受它作为当前版本的测试证据",
    schema: z.string().trim().min(1, "--test-command 需要命令").optional(),
    spec: (value) => ({ testCommand: value }),
  }),
  "allow-path": flag({
    type: "string",
    multiple: true,
    help: "编辑可以修改的路径 glob（可重复；默认整个工作区；.git/、node_modules/ 始终不可写）",
    schema: z
      .array(
        z.string().check((ctx) => {
          const problem = allowPathProblem(ctx.value);
          if (problem !== undefined)
            ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
        }),
      )
      .default([]),
    spec: (value) => ({ allowPaths: value }),
  }),
  "finish-gate": flag({
    type: "string",
    help: "完成验证门：auto（默认：有测试命令时为 tests，否则 none；不带 --script 的内置演示不跑测试，不拿 package.json 的 test 脚本检查它）· tests（只有在当前工作区版本上测试全部通过——读不出个数时是整个测试命令以 0 退出——、改动都在 --allow-path 内才接受完成）· none",
    schema: z
      .enum(FINISH_GATES, { error: `--finish-gate 只能是 ${FINISH_GATES.join("、")}` })
      .default("auto"),
    spec: (value) => ({ finishGate: value }),
  }),
  "max-finish-rejections": flag({
    type: "string",
    help: "完成提议被拒绝多少次后运行以失败结束（默认 3，整个运行累计）",
    schema: count("max-finish-rejections")
      .pipe(z.int().min(1, "--max-finish-rejections 至少为 1"))
      .default(DEFAULT_MAX_FINISH_REJECTIONS),
    spec: (value) => ({ maxFinishRejections: value }),
  }),
  "system-prompt-file": flag({
    type: "string",
    help: "用这个文件的内容替换内置的系统提示（只用于 openai、anthropic；工作区的 AGENTS.md 仍会附在后面）",
    schema: z.string().min(1, "--system-prompt-file 需要文件路径").optional(),
    spec: (value) => ({
      systemPromptFile: value === undefined ? undefined : path.resolve(value),
    }),
  }),
  "trust-workspace": flag({
    type: "boolean",
    help: "信任这个工作区：运行它 .coding-agent/settings.json 里的 hooks 和 MCP 服务器（不加时只有 $CODING_AGENT_HOME/trusted.json 列出的工作区才运行）",
    schema: z.boolean().default(false),
    spec: (value) => ({ trustWorkspace: value || undefined }),
  }),
  "mcp-config": flag({
    type: "string",
    help: 'MCP 服务器配置文件（.mcp.json 格式：{ "mcpServers": { "<名字>": { "command", "args", "env" } 或 { "url" } } }）',
    schema: z.string().min(1, "--mcp-config 需要文件路径").optional(),
    spec: (value) => ({ mcpConfig: value === undefined ? undefined : path.resolve(value) }),
  }),
  "allow-tool": flag({
    type: "string",
    multiple: true,
    help: "无需批准即可调用的 MCP 工具全名（mcp__<服务器>__<工具>，可重复；--approval deny 时只有它们能调用）",
    schema: z.array(z.string().min(1, "--allow-tool 需要工具名")).default([]),
    spec: (value) => ({ allowTools: value.length === 0 ? undefined : value }),
  }),
  subagents: flag({
    type: "string",
    help: "最多同时运行几个子 Agent（默认 0：不提供 spawn_agent；子 Agent 在工作区的隔离副本里运行，预算从本次运行里分出）",
    schema: count("subagents").default(0),
    spec: (value) => ({ subagents: value === 0 ? undefined : value }),
  }),
  // No spec part: the id names the run's folder, it is not how the run runs (a resume keeps it).
  "run-id": flag({
    type: "string",
    help: "这次运行的 ID（默认由开始时间和随机数生成）：评测框架先定好它，运行被杀掉后也找得到运行目录；这个 ID 的目录已经存在时不运行",
    schema: z
      .string()
      .regex(
        RUN_ID_PATTERN,
        "--run-id 只能由字母、数字、_、- 组成（字母或数字开头，最长 100 个字符）",
      )
      .optional(),
  }),
  "print-config": flag({
    type: "boolean",
    help: "不运行：列出每个选项这次会取的值和它的来源（命令行、settings.json 的 run、默认），加 --json 输出 JSON",
    schema: z.boolean().default(false),
  }),
  json: flag({ type: "boolean", help: "以 JSON 输出运行结果", schema: z.boolean().default(false) }),
  help: flag({ type: "boolean", help: "显示帮助", schema: z.boolean().default(false) }),
};

type RunFlags = typeof RUN_FLAGS;

/** `util.parseArgs`'s options for `run`, from the table. */
export const RUN_PARSE_OPTIONS = Object.fromEntries(
  Object.entries(RUN_FLAGS).map(([name, definition]) => [
    name,
    { type: definition.type, multiple: "multiple" in definition },
  ]),
) as { [Name in keyof RunFlags]: { type: RunFlags[Name]["type"]; multiple: boolean } };

/** What `--flag value` strings must be (numbers arrive as text from argv), from the table. */
export const RunFlagsSchema = z.strictObject(
  Object.fromEntries(
    Object.entries(RUN_FLAGS).map(([name, definition]) => [name, definition.schema]),
  ) as { [Name in keyof RunFlags]: RunFlags[Name]["schema"] },
);

/** The flags' values after validation, defaults filled in. */
export type RunFlagValues = z.output<typeof RunFlagsSchema>;

/** Any row of the table, for walking it (a method's parameter is checked loosely). */
interface AnyRunFlag {
  spec?(value: unknown): SpecPart;
}

/**
 * The run spec of a goal and validated flags: each flag's piece, merged (`limits` and
 * `provider` gather the pieces of several flags). The schema gives it its type; a flag value
 * it refused would be a mistake in the table, not the user's.
 */
export function runSpecOf(goal: string, values: RunFlagValues): RunSpec {
  const draft: Record<string, unknown> = { version: RUN_SPEC_VERSION, goal };
  const rows: Readonly<Record<string, AnyRunFlag>> = RUN_FLAGS;
  for (const [name, row] of Object.entries(rows)) {
    const part = row.spec?.(values[name as keyof RunFlagValues]) ?? {};
    for (const [key, value] of Object.entries(part)) {
      if (value === undefined) continue;
      const before = draft[key];
      draft[key] = isRecord(value)
        ? { ...(isRecord(before) ? before : {}), ...defined(value) }
        : value;
    }
  }
  return RunSpecSchema.parse(draft);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
