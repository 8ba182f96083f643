/**
 * `@coding-agent/providers`: model adapters over `fetch`. The loopback test server
 * lives in `@coding-agent/providers/testing`.
 */
export {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_THINKING_BUDGETS,
  createAnthropicProvider,
} from "./anthropic.ts";
export {
  fromAnthropicMessage,
  toAnthropicMessages,
  toAnthropicTools,
} from "./anthropic-messages.ts";
export {
  ANTHROPIC_VERSION,
  type AnthropicBlock,
  type AnthropicMessage,
  AnthropicMessageSchema,
  type AnthropicRequest,
  type AnthropicRequestMessage,
  type AnthropicTool,
} from "./anthropic-wire.ts";
export { type Turn, type TurnCall, type TurnResult, toTurns } from "./conversation.ts";
export {
  InvalidProviderOptionsError,
  ProviderError,
  type ProviderErrorDetails,
  ProvidersError,
} from "./errors.ts";
export {
  excerptOf,
  type JsonPost,
  MAX_EXCERPT_CHARS,
  parseRetryAfter,
  postJson,
  type RetryAfterParser,
} from "./http.ts";
export { createOpenAICompatibleProvider, OPENAI_DEFAULT_BASE_URL } from "./openai-compatible.ts";
export { fromChatCompletion, toChatMessages, toChatTools } from "./openai-messages.ts";
export {
  type AddToolCallDelta,
  addToolCallDelta,
  type ToolCallDelta,
  type ToolCallParts,
} from "./openai-stream.ts";
export {
  type ChatCompletion,
  type ChatCompletionRequest,
  ChatCompletionSchema,
  type ChatMessage,
  type ChatTool,
} from "./openai-wire.ts";
export type { ProviderOptions } from "./options.ts";
export {
  REASONING_EFFORTS,
  type ReasoningEffort,
  VENDOR_NAMES,
  VENDOR_PRESETS,
  type VendorName,
  type VendorPreset,
} from "./presets.ts";
export {
  createTokenEstimator,
  estimateTokensConservatively,
  type TokenEstimateStyle,
  type TokenEstimatorOptions,
} from "./token-estimate.ts";
export { readToolArguments, type ToolArguments } from "./tool-arguments.ts";
