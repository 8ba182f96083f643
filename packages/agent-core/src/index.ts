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
export {
  type ModelRetryOptions,
  type RunOptions,
  type RunResult,
  runAgent,
  statusOf,
} from "./agent-loop.ts";
export {
  AbortError,
  AgentCoreError,
  InvalidLimitsError,
  InvalidTaskError,
  InvalidToolRegistryError,
  isAbortError,
  ScriptExhaustedError,
  ScriptNotFinishedError,
} from "./errors.ts";
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
  formatIssuePath,
  formatValueIssues,
  type RootLabel,
  toValueIssues,
  type ValueIssue,
} from "./issues.ts";
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
  deepFreeze,
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
  type JsonSchema,
  type ModelRequest,
  type ModelResponse,
  ModelResponseSchema,
  type Provider,
  parseModelResponse,
  type TokenUsage,
  TokenUsageSchema,
  type ToolDescription,
} from "./provider.ts";
export {
  createRedactor,
  DEFAULT_SECRET_PATTERNS,
  type Redactor,
  type RedactorOptions,
  SECRET_ENV_NAME,
  type SecretPattern,
} from "./redact.ts";
export {
  checkPolicy,
  decideRetry,
  type GiveUpReason,
  type RetryDecision,
  type RetryInput,
  type RetryPolicy,
  type WithRetryOptions,
  type WithRetryResult,
  withRetry,
} from "./retry.ts";
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
  type Authorization,
  type BlockedOutcome,
  blockRun,
  createToolRegistry,
  defineTool,
  isBlockedOutcome,
  isToolRegistry,
  type Tool,
  type ToolError,
  type ToolErrorResult,
  ToolErrorResultSchema,
  ToolErrorSchema,
  type ToolInput,
  type ToolInputCheck,
  type ToolRegistry,
  type ToolSet,
  type TypedToolDefinition,
  toolError,
} from "./tools.ts";
export {
  createTracer,
  type RunStatus,
  type StopCode,
  type TraceEvent,
  type TraceEventBody,
  type Tracer,
  type TraceSink,
} from "./trace.ts";
