/**
 * `@coding-agent/agent-core`: a small, correct agent runtime. The test fake model
 * lives in `@coding-agent/agent-core/testing`.
 */
export { type Settled, settle, settleWithTimeout, type TimedSettled } from "./abortable.ts";
export {
  type Action,
  type ActionParseResult,
  ActionSchema,
  type ActionType,
  canonicalJson,
  FinishActionSchema,
  fingerprintAction,
  type MessageAction,
  MessageActionSchema,
  parseAction,
  type ToolCallAction,
  ToolCallActionSchema,
} from "./action.ts";
export { type RunResult, runAgent } from "./agent-loop.ts";
export { type ArtifactStore, artifactMainField, artifactText } from "./artifacts.ts";
export {
  type CompactionChoice,
  type CompactionQuestion,
  type ContextBudgetOptions,
  chooseCompaction,
  createContextBudget,
} from "./context-budget.ts";
export {
  BUILTIN_PRICING,
  BUILTIN_PRICING_DATE,
  checkCost,
  costOf,
  formatUsd,
  type ModelPrice,
  ModelPriceSchema,
  type PricingTable,
  PricingTableSchema,
  priceOf,
} from "./cost.ts";
export { deepFreeze } from "./deep-freeze.ts";
export {
  AbortError,
  AgentCoreError,
  InvalidLimitsError,
  InvalidTaskError,
  InvalidToolRegistryError,
  isAbortError,
  RunAccountError,
  ScriptExhaustedError,
  ScriptNotFinishedError,
} from "./errors.ts";
export type {
  BeforeModelCallDecision,
  Compaction,
  ExtensionStop,
  FinishDecision,
  FinishProposal,
  ModelReplyInfo,
  RunExtension,
  ToolCallDecision,
  ToolCallInfo,
  ToolCallResult,
  ToolResultDecision,
} from "./extension.ts";
export {
  classifyFailure,
  FAILURE_CLASSES,
  FAILURE_TABLE,
  type Failure,
  type FailureClass,
  type FailureRow,
  type FailureSource,
  findFailureRow,
} from "./failure.ts";
export {
  type CountedTestReport,
  createFinishGate,
  type ExitStatusTestReport,
  type FinishEvidence,
  type FinishGate,
  type FinishGateOptions,
  type FinishRejectionReason,
  type FinishVerdict,
  judgeFinish,
  readTestReport,
  type TestEvidence,
  type TestReport,
} from "./finish-gate.ts";
export {
  createHookExtension,
  HOOK_DENIED,
  type HookAllow,
  type Hooks,
  type HookVeto,
} from "./hooks.ts";
export {
  formatIssuePath,
  formatValueIssues,
  type RootLabel,
  toValueIssues,
  type ValueIssue,
} from "./issues.ts";
export {
  createLoopDetection,
  DEFAULT_LOOP_WINDOW,
  judgeLoopWindow,
  type LoopDetectionOptions,
  type LoopVerdict,
  type LoopWindowEntry,
  READ_ONLY_TOOLS,
} from "./loop-detection.ts";
export {
  type BudgetCode,
  createLoopGuard,
  DEFAULT_MAX_TOOL_ERRORS,
  type GuardCounters,
  type GuardVerdict,
  type Limits,
  LimitsSchema,
  type LoopGuard,
  type LoopGuardOptions,
  parseLimits,
} from "./loop-guard.ts";
export {
  type AssistantFinishMessage,
  type AssistantMessage,
  type AssistantTextMessage,
  type AssistantToolCallMessage,
  createHistory,
  type FinishRejectedMessage,
  type History,
  isHistoryView,
  type Message,
  type ToolFailureMessage,
  type ToolResultMessage,
  type ToolSuccessMessage,
  type UserMessage,
} from "./messages.ts";
export {
  createModelRequest,
  isImmutableRequest,
  type ModelRequest,
  type ModelResponse,
  ModelResponseSchema,
  type Provider,
  parseModelResponse,
  type TokenUsage,
  TokenUsageSchema,
} from "./provider.ts";
export { type ReplyReasoning, ReplyReasoningSchema } from "./reasoning.ts";
export {
  createRedactor,
  DEFAULT_SECRET_PATTERNS,
  type Redactor,
  type RedactorOptions,
  redactJson,
  SECRET_ENV_NAME,
  type SecretPattern,
} from "./redact.ts";
export {
  checkPolicy,
  decideRetry,
  type GiveUpReason,
  MAX_RETRY_AFTER_MS,
  type ModelRetryOptions,
  type RetryDecision,
  type RetryInput,
  type RetryPolicy,
  type RetryWait,
  type RetryWaitDecision,
  type RetryWaitInput,
  retryWait,
  type WithRetryOptions,
  type WithRetryResult,
  withRetry,
} from "./retry.ts";
export {
  createRunAccount,
  type RunAccount,
  type RunAccountOptions,
  type RunSpend,
} from "./run-account.ts";
export { DEFAULT_MAX_FINISH_REJECTIONS, type RunOptions } from "./run-options.ts";
export {
  DEFAULT_MAX_OBSERVATION_CHARS,
  MIN_MARKED_CHARS,
  type Observation,
  type SerializeOptions,
  serializeObservation,
  stableStringify,
  TRUNCATION_MARKER,
  truncateMiddle,
} from "./serialize.ts";
export {
  formatTaskIssues,
  parseTask,
  renderTask,
  type Task,
  type TaskBudgets,
  TaskBudgetsSchema,
  type TaskIssue,
  type TaskParseResult,
  TaskSchema,
} from "./task.ts";
export {
  type ToolError,
  type ToolErrorResult,
  ToolErrorResultSchema,
  ToolErrorSchema,
  toolError,
} from "./tool-error.ts";
export {
  type Authorization,
  type BlockedOutcome,
  blockRun,
  createToolRegistry,
  defineTool,
  isBlockedOutcome,
  isToolRegistry,
  type JsonSchema,
  type Tool,
  type ToolDescription,
  type ToolInput,
  type ToolInputCheck,
  type ToolRegistry,
  type ToolSet,
  type TypedToolDefinition,
} from "./tools.ts";
export {
  boundTraceEvent,
  type CompactedResult,
  createTracer,
  MAX_TRACE_FIELD_CHARS,
  MAX_TRACE_LIST_ITEMS,
  type RunStatus,
  type StopCode,
  statusOf,
  type TraceEvent,
  type TraceEventBody,
  type Tracer,
  type TraceSink,
} from "./trace.ts";
export { checkTrace, type TraceCheck, type TraceProblem } from "./trace-check.ts";
