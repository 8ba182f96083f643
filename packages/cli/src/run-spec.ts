import { formatValueIssues, ModelPriceSchema, toValueIssues } from "@coding-agent/agent-core";
import { REASONING_EFFORTS, VENDOR_NAMES } from "@coding-agent/providers";
import { APPROVAL_MODES, SANDBOX_MODES } from "@coding-agent/tools";
import { z } from "zod";
import { McpRecordSchema } from "./mcp/record.ts";

/**
 * The version of the run spec this runtime writes. A log's `run_started.options` without a
 * `version` was written before the spec had one (see `LegacyOptionsSchema`).
 */
export const RUN_SPEC_VERSION = 1;

/** Model backends `--provider` accepts: the offline Fake Model, or a vendor by name. */
export const PROVIDERS = ["fake", ...VENDOR_NAMES] as const;

/** What an environment variable's name may be (POSIX: letters, digits, underscore; no digit first). */
export const ENV_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A model backend. */
export type ProviderName = (typeof PROVIDERS)[number];

/** `--finish-gate` values (docs/contracts.md §7). */
export const FINISH_GATES = ["auto", "tests", "none"] as const;
export type FinishGateMode = (typeof FINISH_GATES)[number];

const count = z.int().nonnegative();
const positive = z.int().min(1);

/** The budgets of a run (`--max-*`), as `runAgent` takes them plus the loop detection's. */
const LimitsSchema = z.strictObject({
  maxSteps: count,
  maxToolCalls: count.optional(),
  maxTokens: count.optional(),
  maxDurationMs: count.optional(),
  modelTimeoutMs: positive.optional(),
  toolTimeoutMs: positive.optional(),
  /**
   * `--max-repeated-actions`: consecutive identical replies whose observations did not
   * change; the loop detection counts them (`runAgent` gets the limits without it).
   */
  maxRepeatedActions: positive,
  maxToolErrors: positive.optional(),
});

/** The backend; `model` and `baseUrl` only for a real one (checked when parsing flags). */
const ProviderSchema = z.strictObject({
  name: z.enum(PROVIDERS),
  model: z.string().min(1).optional(),
  baseUrl: z.string().min(1).optional(),
  /** `--api-key-env`: the environment variable the key is read from, instead of the vendor's. */
  keyVariable: z.string().regex(ENV_VARIABLE_NAME).optional(),
  /** `--fallback-model`: asked once the model's attempts failed retryably (same backend). */
  fallbackModel: z.string().min(1).optional(),
  /** `--reasoning-effort`: how hard a reasoning model thinks; unset keeps the vendor's default. */
  reasoningEffort: z.enum(REASONING_EFFORTS).optional(),
});

/** Every field of a run spec but its version: what the flags say, and what the start resolved. */
const SPEC_FIELDS = {
  goal: z.string().min(1),
  limits: LimitsSchema,
  /** `--loop-window`: tool calls the loop detection looks back over (absent in older logs: 12). */
  loopWindow: z.int().min(2).optional(),
  /** `--max-context-tokens`: the budget of one model request, if any. */
  maxContextTokens: positive.optional(),
  /** Retries of a model call that failed `retryable`; 0: none. */
  retries: count,
  /** `--max-observation-chars`: the run's cap on one tool result and the tools' page size. */
  maxObservationChars: positive,
  /** `--script` (absolute once the run started: a resume may start from another folder). */
  scriptPath: z.string().min(1).optional(),
  /** `--pricing` (absolute): prices over the built-in table. */
  pricingPath: z.string().min(1).optional(),
  /** `--max-cost-usd`: the USD the run's model calls may cost. */
  maxCostUsd: z.number().positive().optional(),
  /**
   * The model's price as the run started (null: unknown), so a resume and a replay count
   * with the prices the run had. Absent until the run starts.
   */
  price: ModelPriceSchema.nullable().optional(),
  /** `--fallback-model`'s price as the run started (null: unknown), recorded like `price`. */
  fallbackPrice: ModelPriceSchema.nullable().optional(),
  provider: ProviderSchema,
  /** `--quiet`: no streamed text or reasoning on a terminal. */
  quiet: z.boolean().optional(),
  /** The workspace (its real path once the run started). */
  workspace: z.string().min(1),
  allowCommands: z.array(z.string().min(1)),
  approval: z.enum(APPROVAL_MODES),
  sandbox: z.enum(SANDBOX_MODES),
  /** `--test-command`; without it `run_tests` runs the package's `test` script. */
  testCommand: z.string().min(1).optional(),
  allowPaths: z.array(z.string()),
  finishGate: z.enum(FINISH_GATES),
  maxFinishRejections: positive,
  /** `--system-prompt-file` (absolute): replaces the built-in system prompt of a real model. */
  systemPromptFile: z.string().min(1).optional(),
  /** `--trust-workspace`: the workspace's own settings (hooks) may run (absent in older logs: false). */
  trustWorkspace: z.boolean().optional(),
  /** `--mcp-config` (absolute): MCP servers beside the settings files' (absent in older logs). */
  mcpConfig: z.string().min(1).optional(),
  /** `--allow-tool`: MCP tools that need no approval (absent in older logs: none). */
  allowTools: z.array(z.string().min(1)).optional(),
  /** `--subagents`: children that may run at once; absent (older logs) or 0: no `spawn_agent`. */
  subagents: count.optional(),
  /** What the MCP servers listed as the run started (a replay offers the same tools). */
  mcp: McpRecordSchema.optional(),
};

/**
 * How a run is started, and the only input a run is built from: what `run`'s flags say,
 * and once it has started, what the start resolved (the real workspace, the prices, the
 * MCP servers' tools). `run_started.options` records it; `resume` and `replay` read it back
 * through this schema.
 */
export const RunSpecSchema = z.strictObject({
  version: z.literal(RUN_SPEC_VERSION),
  ...SPEC_FIELDS,
});

/** A run spec (see `RunSpecSchema`). */
export type RunSpec = z.infer<typeof RunSpecSchema>;

/**
 * `run_started.options` as logs written before the spec had a version hold it: the CLI's
 * parse result, with its command kind and `--json`. Fields such older logs lack are optional
 * above; keys a yet older runtime wrote and this one no longer reads are dropped.
 */
const LegacyOptionsSchema = z.object({
  kind: z.literal("run").optional(),
  json: z.boolean().optional(),
  ...SPEC_FIELDS,
});

/** `run_started.options` read back: the run spec, or a Chinese message naming the bad field. */
export type RecordedSpec =
  | { readonly ok: true; readonly spec: RunSpec }
  | { readonly ok: false; readonly message: string };

/**
 * The run spec a state log recorded, validated: the current version, or a log written
 * before versions (upgraded). Anything else (an edited log, a newer runtime's) is refused
 * with the field at fault, as `run_started.options.<field>`.
 */
export function parseRecordedSpec(options: unknown): RecordedSpec {
  // zod's own messages in Chinese for this parse only (not `z.config`, which is global).
  const error = z.locales.zhCN().localeError;
  const version =
    typeof options === "object" && options !== null && "version" in options
      ? options.version
      : undefined;
  if (version === undefined) {
    const legacy = LegacyOptionsSchema.safeParse(options, { error });
    if (!legacy.success) return invalid(legacy.error.issues);
    const { kind: _kind, json: _json, ...fields } = legacy.data;
    return { ok: true, spec: { version: RUN_SPEC_VERSION, ...fields } };
  }
  if (version !== RUN_SPEC_VERSION) {
    return {
      ok: false,
      message: `run_started.options.version 是 ${JSON.stringify(version)}，这个版本的 coding-agent 只读得懂 ${RUN_SPEC_VERSION}（或没有 version 的旧日志）`,
    };
  }
  const parsed = RunSpecSchema.safeParse(options, { error });
  return parsed.success ? { ok: true, spec: parsed.data } : invalid(parsed.error.issues);
}

function invalid(issues: readonly z.core.$ZodIssue[]): RecordedSpec {
  const fields = toValueIssues(issues).map((issue) => ({
    ...issue,
    path: issue.path === "(root)" ? "run_started.options" : `run_started.options.${issue.path}`,
  }));
  return { ok: false, message: `run_started.options 无效：${formatValueIssues(fields, "；")}` };
}
