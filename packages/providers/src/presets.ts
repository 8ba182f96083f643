/**
 * The vendors a learner names with `--provider`, each as its own documentation describes
 * it: the wire format it speaks, its base URL and key variable, and how a reasoning effort
 * becomes request fields. The wire rules for what a reply carries and what must go back
 * live with each wire (`openai-reasoning.ts`, `anthropic-messages.ts`); this file only
 * holds what differs per vendor.
 */

/** How hard a reasoning model thinks: `none` turns thinking off where the vendor can. */
export const REASONING_EFFORTS = ["none", "low", "medium", "high", "max"] as const;

/** How hard a reasoning model thinks (see `REASONING_EFFORTS`). */
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** The vendors `--provider` knows by name. */
export const VENDOR_NAMES = [
  "openai",
  "anthropic",
  "deepseek",
  "qwen",
  "kimi",
  "glm",
  "gemini",
  "openrouter",
] as const;

/** A vendor `--provider` knows by name. */
export type VendorName = (typeof VENDOR_NAMES)[number];

/** One vendor: where it is, how it is reached, what its reasoning switch looks like. */
export interface VendorPreset {
  readonly name: VendorName;
  /** The vendor as its errors name it (Chinese text around it). */
  readonly label: string;
  /** The wire format: OpenAI Chat Completions or Anthropic Messages. */
  readonly wire: "openai" | "anthropic";
  /** The documented base URL. */
  readonly baseUrl: string;
  /** The environment variable the key is read from (never a flag). */
  readonly keyVariable: string;
  /** The environment variable that may override the base URL. */
  readonly baseUrlVariable: string;
  /**
   * The request fields that ask for `effort` (OpenAI wire only; the Anthropic wire turns an
   * effort into a thinking budget itself). Fields a vendor rejects are never among them.
   */
  readonly effortFields: (effort: ReasoningEffort) => Readonly<Record<string, unknown>>;
}

/** OpenAI's own `reasoning_effort` has no `max`; its highest level stands in. */
const reasoningEffortField = (effort: ReasoningEffort) => ({
  reasoning_effort: effort === "max" ? "high" : effort,
});

/** The `thinking: { type }` switch of DeepSeek, Kimi and GLM. */
const thinkingSwitch = (effort: ReasoningEffort) => ({
  thinking: { type: effort === "none" ? "disabled" : "enabled" },
});

/** DashScope's thinking budget per effort (`max` leaves the model's own maximum). */
const QWEN_BUDGET: Readonly<Record<ReasoningEffort, number | undefined>> = {
  none: undefined,
  low: 1024,
  medium: 4096,
  high: 16384,
  max: undefined,
};

/**
 * Every vendor, with its documented values:
 * - DeepSeek (api-docs.deepseek.com, "Thinking Mode"): `thinking.type` enabled/disabled,
 *   `reasoning_effort` low/high/max (medium is mapped to high by the API itself).
 * - Qwen on DashScope's OpenAI-compatible mode (help.aliyun.com, "深度思考"):
 *   `enable_thinking` and `thinking_budget`.
 * - Kimi (platform.moonshot.cn) and GLM (docs.bigmodel.cn): `thinking.type`.
 * - Gemini's OpenAI compatibility (ai.google.dev/gemini-api/docs/openai): `reasoning_effort`
 *   none/low/medium/high.
 * - OpenRouter (openrouter.ai/docs, "Reasoning Tokens"): `reasoning.effort`.
 */
export const VENDOR_PRESETS: Readonly<Record<VendorName, VendorPreset>> = {
  openai: {
    name: "openai",
    label: "OpenAI 兼容接口",
    wire: "openai",
    baseUrl: "https://api.openai.com/v1",
    keyVariable: "OPENAI_API_KEY",
    baseUrlVariable: "OPENAI_BASE_URL",
    effortFields: reasoningEffortField,
  },
  anthropic: {
    name: "anthropic",
    label: "Anthropic",
    wire: "anthropic",
    baseUrl: "https://api.anthropic.com",
    keyVariable: "ANTHROPIC_API_KEY",
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    effortFields: () => ({}),
  },
  deepseek: {
    name: "deepseek",
    label: "DeepSeek",
    wire: "openai",
    baseUrl: "https://api.deepseek.com",
    keyVariable: "DEEPSEEK_API_KEY",
    baseUrlVariable: "DEEPSEEK_BASE_URL",
    effortFields: (effort) =>
      effort === "none"
        ? thinkingSwitch(effort)
        : { ...thinkingSwitch(effort), reasoning_effort: effort },
  },
  qwen: {
    name: "qwen",
    label: "通义千问（DashScope）",
    wire: "openai",
    baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1",
    keyVariable: "DASHSCOPE_API_KEY",
    baseUrlVariable: "DASHSCOPE_BASE_URL",
    effortFields: (effort) => {
      const budget = QWEN_BUDGET[effort];
      return {
        enable_thinking: effort !== "none",
        ...(budget === undefined ? {} : { thinking_budget: budget }),
      };
    },
  },
  kimi: {
    name: "kimi",
    label: "Kimi（Moonshot）",
    wire: "openai",
    baseUrl: "https://api.moonshot.cn/v1",
    keyVariable: "MOONSHOT_API_KEY",
    baseUrlVariable: "MOONSHOT_BASE_URL",
    effortFields: thinkingSwitch,
  },
  glm: {
    name: "glm",
    label: "智谱 GLM",
    wire: "openai",
    baseUrl: "https://open.bigmodel.cn/api/paas/v4",
    keyVariable: "ZHIPUAI_API_KEY",
    baseUrlVariable: "ZHIPUAI_BASE_URL",
    effortFields: thinkingSwitch,
  },
  gemini: {
    name: "gemini",
    label: "Gemini（OpenAI 兼容）",
    wire: "openai",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyVariable: "GEMINI_API_KEY",
    baseUrlVariable: "GEMINI_BASE_URL",
    effortFields: reasoningEffortField,
  },
  openrouter: {
    name: "openrouter",
    label: "OpenRouter",
    wire: "openai",
    baseUrl: "https://openrouter.ai/api/v1",
    keyVariable: "OPENROUTER_API_KEY",
    baseUrlVariable: "OPENROUTER_BASE_URL",
    effortFields: (effort) => ({ reasoning: { effort: effort === "max" ? "high" : effort } }),
  },
};
