import { type AbortRace, createAbortRace, type Settled, settleWithTimeout } from "./abortable.ts";
import { type Action, type MessageAction, parseAction, type ToolCallAction } from "./action.ts";
import { errorMessage, InvalidTaskError, isAbortError } from "./errors.ts";
import { classifyFailure, type Failure, type FailureClass } from "./failure.ts";
import { formatValueIssues } from "./issues.ts";
import {
  guardOfRun,
  type Limits,
  type LoopGuard,
  parseLimits,
  performanceClock,
} from "./loop-guard.ts";
import { createRunHistory, deepFreeze, type Message, type RunHistory } from "./messages.ts";
import {
  createModelRequest,
  type Provider,
  parseModelResponse,
  type TokenUsage,
} from "./provider.ts";
import { type Redactor, redactorForEnvironment } from "./redact.ts";
import { checkPolicy, decideRetry, type RetryPolicy, withRetry } from "./retry.ts";
import {
  DEFAULT_MAX_OBSERVATION_CHARS,
  serializeObservation,
  stableStringify,
  truncateMiddle,
} from "./serialize.ts";
import { parseTask, renderTask, type Task, type TaskBudgets } from "./task.ts";
import {
  createToolRegistry,
  isBlockedOutcome,
  isToolRegistry,
  type Tool,
  type ToolError,
  ToolErrorResultSchema,
  type ToolInput,
  type ToolInputCheck,
  type ToolRegistry,
  type ToolSet,
} from "./tools.ts";
import {
  createTracer,
  type RunStatus,
  type StopCode,
  type Tracer,
  type TraceSink,
} from "./trace.ts";

/** The structured end of a run. `runAgent` resolves to it on every path. */
export interface RunResult {
  readonly status: RunStatus;
  /** The precise stop: which budget, which failure, or `finished`. */
  readonly code: StopCode;
  /** Why the run stopped, readable (redacted). */
  readonly reason: string;
  /** The model's summary when completed; otherwise the reason. */
  readonly summary: string;
  /** Model calls that returned a valid action. */
  readonly steps: number;
  /** Tools that really ran. */
  readonly toolCalls: number;
  readonly usage: TokenUsage;
  /** The whole history, read-only. */
  readonly messages: readonly Message[];
}

/** Optional collaborators of a run. */
export interface RunOptions {
  /** Receives trace events; never changes the result. */
  readonly trace?: TraceSink;
  /** Milliseconds clock for the duration budget and trace times. */
  readonly clock?: () => number;
  /** Cap on the characters of one observation or error text. Default 8,000. */
  readonly maxObservationChars?: number;
  /**
   * Masks secrets in every text that enters the history, the result or the trace.
   * Default: the built-in patterns plus the values of secret-looking environment
   * variables, read when the run starts.
   */
  readonly redact?: Redactor;
  /**
   * Retries a model call that failed `retryable` (no answer, HTTP 408/429/5xx, its own
   * `modelTimeoutMs`), with backoff; see `ModelRetryOptions`. Default: no retry.
   */
  readonly retry?: ModelRetryOptions;
}

/**
 * How a run retries a failed model call. Only a `retryable` failure is retried, never
 * twice in a row with the same fingerprint (class, HTTP status, message), never past
 * `maxAttempts` per step and never past the run's time budget. Every other failure
 * ends the run as before. Tools are never retried by the runtime: a tool may have
 * changed something, so its errors go back to the model, which decides.
 */
export interface ModelRetryOptions {
  readonly policy: RetryPolicy;
  /** Waits `ms`, or less if the signal aborts. Default: a timer. Tests pass a fake. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The jitter's randomness, in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

/** Maps each stop to the status a caller acts on (exit code, UI, retry). */
export function statusOf(code: StopCode): RunStatus {
  switch (code) {
    case "finished":
      return "completed";
    case "max_steps":
    case "max_tool_calls":
    case "max_tokens":
    case "max_duration":
    case "model_timeout":
    case "max_tool_errors":
    case "repeated_action":
      return "budget_exceeded";
    case "cancelled":
      return "cancelled";
    case "unknown_tool":
    case "tool_error":
    case "invalid_action":
    case "provider_error":
      return "failed";
    case "permission_denied":
      return "blocked";
    default: {
      const unreachable: never = code;
      throw new TypeError(`unhandled stop code ${String(unreachable)}`);
    }
  }
}

/** State shared by the steps of one run. */
interface Run {
  readonly task: Task;
  readonly provider: Provider;
  readonly tools: ToolRegistry;
  readonly guard: LoopGuard;
  /** The limits the guard enforces (the caller's, tightened by the task's budgets). */
  readonly limits: Limits;
  readonly history: RunHistory;
  readonly tracer: Tracer;
  readonly redact: Redactor;
  /** Cap on an observation, an error text and a reason. */
  readonly maxChars: number;
  readonly signal: AbortSignal | undefined;
  /** What provider and tools receive: the caller's signal, or one that never fires. */
  readonly callSignal: AbortSignal;
  /** Races each provider and tool call against the signal, with one listener per run. */
  readonly race: AbortRace;
  /** Call ids already in the history: a model may reuse one, the history may not. */
  readonly callIds: Set<string>;
  readonly retry: ModelRetryOptions | undefined;
}

/**
 * Runs the agent loop: observe, ask the model, act, write the observation back,
 * until the model finishes or the runtime stops the run. Never rejects for a
 * run's outcome (a failing tool, a bad reply, a budget, a cancel): it resolves to
 * a `RunResult`. It throws only for a caller's mistake: an invalid task or limits.
 */
export async function runAgent(
  task: Task | string,
  provider: Provider,
  tools: ToolSet | ToolRegistry,
  limits: Limits,
  signal?: AbortSignal,
  options: RunOptions = {},
): Promise<RunResult> {
  const parsedTask = parseTask(typeof task === "string" ? { goal: task } : task);
  if (!parsedTask.ok) {
    const details = formatValueIssues(parsedTask.issues, "; ");
    throw new InvalidTaskError(`invalid task: ${details}`);
  }
  const clock = options.clock ?? performanceClock;
  // Read per run, not per process: a key set or rotated since the last run is masked too.
  const redact = options.redact ?? redactorForEnvironment();
  const callerLimits = parseLimits(limits);
  if (options.retry !== undefined) checkPolicy(options.retry.policy);
  const runLimits = tightestLimits(callerLimits, parsedTask.task.budgets);
  const run: Run = {
    task: deepFreeze(redactTask(parsedTask.task, redact)),
    provider,
    tools: isToolRegistry(tools) ? tools : createToolRegistry(tools),
    guard: guardOfRun(runLimits, clock),
    limits: runLimits,
    history: createRunHistory(),
    tracer: createTracer(options.trace, clock),
    redact,
    maxChars: options.maxObservationChars ?? DEFAULT_MAX_OBSERVATION_CHARS,
    signal,
    callSignal: signal ?? new AbortController().signal,
    race: createAbortRace(signal),
    callIds: new Set(),
    retry: options.retry,
  };
  try {
    return await loop(run, callerLimits);
  } finally {
    run.race.dispose();
  }
}

async function loop(run: Run, limits: Limits): Promise<RunResult> {
  run.history.appendFlat({ role: "user", content: renderTask(run.task) });
  // A frozen copy: a sink keeps what it is given, and must not hold the caller's object.
  run.tracer.emit({ type: "run_started", goal: run.task.goal, limits: Object.freeze(limits) });

  while (true) {
    // A cancelled run makes no further model call (and so no further cost).
    if (run.signal?.aborted) return finish(run, "cancelled", "运行已取消");
    const budget = run.guard.beforeModelCall();
    if (budget.stop) return finish(run, budget.code, budget.reason);

    const reply = await askModel(run);
    if (reply.kind === "stop") return finish(run, reply.code, reply.reason);
    if (reply.kind === "actions") {
      const stop = await actOnReply(run, reply.actions, reply.tools);
      if (stop !== undefined) return finish(run, stop.code, stop.reason);
      continue;
    }
    const action = reply.action;

    switch (action.type) {
      case "finish":
        run.history.appendFlat({ role: "assistant", type: "finish", summary: action.summary });
        return finish(run, "finished", "模型提出完成", action.summary);
      case "message":
        // A message is a new observation for the next round; nothing else happens.
        run.history.appendFlat({ role: "assistant", type: "message", content: action.content });
        break;
      case "tool_call": {
        const stop = await callTool(run, action, reply.tool);
        if (stop !== undefined) return finish(run, stop.code, stop.reason);
        break;
      }
      // Stryker disable next-line ConditionalExpression,BlockStatement: unreachable, parseAction yields only the three action types
      default: {
        const unreachable: never = action;
        // Stryker disable next-line StringLiteral: unreachable, see the default above
        throw new TypeError(`unhandled action ${JSON.stringify(unreachable)}`);
      }
    }
  }
}

/**
 * A valid reply, redacted as it will be recorded (a tool call's `callId` set and
 * unique in the run), with each tool name as the model wrote it, for the lookup only.
 */
type ModelReply =
  | { readonly kind: "action"; readonly action: Action; readonly tool: string }
  | {
      readonly kind: "actions";
      readonly actions: readonly (MessageAction | ToolCallAction)[];
      readonly tools: readonly string[];
    }
  | { readonly kind: "stop"; readonly code: StopCode; readonly reason: string };

type Stop = { readonly code: StopCode; readonly reason: string };

/** One model call: request, race against cancel, validate, count, check repeats. */
async function askModel(run: Run): Promise<ModelReply> {
  const step = run.guard.steps + 1;
  const request = createModelRequest({
    task: run.task,
    messages: run.history.view(),
    step,
    tools: run.tools.descriptions,
  });
  run.tracer.emit({ type: "model_started", step });
  const settled = await callModel(run, step, request);

  // An abort during the call wins over whatever the provider did or will do.
  if (settled.kind === "aborted" || run.signal?.aborted)
    return modelFailed(run, step, "cancelled", "模型调用期间运行被取消");
  if (settled.kind === "timeout") {
    // Both end the run budget_exceeded: a per-call limit is a budget like the run's own.
    if (settled.limit === "run") {
      const reason = `模型调用期间用完时间预算 ${run.limits.maxDurationMs} ms，调用已中止`;
      return modelFailed(run, step, "max_duration", reason);
    }
    const reason = `模型调用超过 ${run.limits.modelTimeoutMs} ms 未返回，已中止（modelTimeoutMs）`;
    return modelFailed(run, step, "model_timeout", reason);
  }
  if (settled.kind === "error") {
    if (isAbortError(settled.error)) return modelFailed(run, step, "cancelled", "模型调用被中止");
    return modelFailed(run, step, "provider_error", `模型调用失败：${errorText(settled.error)}`);
  }
  const response = parseModelResponse(settled.value);
  if (!response.ok) return modelFailed(run, step, "invalid_action", response.reason);
  run.guard.recordUsage(response.response.usage);
  if (response.response.actions !== undefined)
    return parseReplyActions(run, step, response.response.actions, response.response.usage);
  const parsed = parseAction(response.response.action);
  // An invalid reply is not a step: steps count valid replies only.
  if (!parsed.ok) return modelFailed(run, step, "invalid_action", `模型回复无效：${parsed.reason}`);

  // From here on only the redacted action exists: history, trace, guard and tool all see it.
  const action = redactAction(run, parsed.action, `call_${step}`);
  const verdict = run.guard.recordAction(action);
  if (run.tracer.enabled) {
    run.tracer.emit({
      type: "model_completed",
      step,
      ok: true,
      actionType: action.type,
      detail: boundedText(run, action),
      ...(response.response.usage === undefined ? {} : { usage: response.response.usage }),
    });
  }
  if (verdict.stop) return { kind: "stop", code: verdict.code, reason: verdict.reason };
  return {
    // Stryker disable next-line StringLiteral: equivalent, the loop tells replies apart only by "stop" and "actions"
    kind: "action",
    action,
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, the name is read only for a tool_call
    tool: parsed.action.type === "tool_call" ? parsed.action.tool : "",
  };
}

/**
 * Validates a reply of several actions: each must be a valid `message` or
 * `tool_call` (a `finish` ends a run, so it cannot share a reply with more work).
 */
function parseReplyActions(
  run: Run,
  step: number,
  replies: readonly unknown[],
  usage: TokenUsage | undefined,
): ModelReply {
  const parsedActions: (MessageAction | ToolCallAction)[] = [];
  for (const [index, reply] of replies.entries()) {
    const parsed = parseAction(reply);
    if (!parsed.ok) {
      const reason = `模型回复无效：actions[${index}]：${parsed.reason}`;
      return modelFailed(run, step, "invalid_action", reason);
    }
    if (parsed.action.type === "finish") {
      const reason = `模型回复无效：actions[${index}] 是 finish，finish 只能单独回复`;
      return modelFailed(run, step, "invalid_action", reason);
    }
    parsedActions.push(parsed.action);
  }
  const actions: (MessageAction | ToolCallAction)[] = [];
  const tools: string[] = [];
  let calls = 0;
  for (const parsed of parsedActions) {
    if (parsed.type === "tool_call") calls += 1;
    actions.push(
      redactAction(run, parsed, `call_${step}_${calls}`) as MessageAction | ToolCallAction,
    );
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, a name is read only for a tool_call
    tools.push(parsed.type === "tool_call" ? parsed.tool : "");
  }
  const verdict = run.guard.recordAction(actions);
  if (run.tracer.enabled) {
    run.tracer.emit({
      type: "model_completed",
      step,
      ok: true,
      detail: boundedText(run, actions),
      ...(usage === undefined ? {} : { usage }),
    });
  }
  if (verdict.stop) return { kind: "stop", code: verdict.code, reason: verdict.reason };
  return { kind: "actions", actions, tools };
}

/**
 * Acts on a reply of several actions, as the model APIs require: first the whole
 * reply goes into the history (its text, then every tool call), then each call runs
 * in order and gets its result. If the run stops midway, the calls not run still
 * get a result saying so, so no call in the history is left unanswered.
 */
async function actOnReply(
  run: Run,
  actions: readonly (MessageAction | ToolCallAction)[],
  tools: readonly string[],
): Promise<Stop | undefined> {
  const step = run.guard.steps;
  const calls: { readonly action: RecordedToolCall; readonly name: string }[] = [];
  for (const [index, action] of actions.entries()) {
    if (action.type === "message") {
      run.history.appendFlat({ role: "assistant", type: "message", content: action.content });
      continue;
    }
    recordCall(run, action as RecordedToolCall);
    // Stryker disable next-line StringLiteral: unreachable, `tools` has one entry per action
    calls.push({ action: action as RecordedToolCall, name: tools[index] ?? "" });
  }
  for (const [index, { action, name }] of calls.entries()) {
    const stop = await callTool(run, action, name, true);
    if (stop === undefined) continue;
    for (const rest of calls.slice(index + 1)) {
      const ref: ToolCallRef = { run, step, callId: rest.action.callId, tool: rest.action.tool };
      toolFailed(ref, { code: "not_run", message: `未执行：${stop.reason}` }, false);
    }
    return stop;
  }
  return undefined;
}

/** A redacted tool call as recorded: its `callId` is always set and unique in the run. */
type RecordedToolCall = ToolCallAction & { readonly callId: string };

/** Writes a tool call into the history; its input is already a private frozen copy. */
function recordCall(run: Run, action: RecordedToolCall): void {
  const { callId, tool, input } = action;
  // The input is the frozen copy `redactAction` made.
  run.history.appendFlat({ role: "assistant", type: "tool_call", callId, tool, input });
}

/**
 * Runs one tool call and writes its result back as a tool message, in the order
 * of the calls. An expected error (invalid input, a tool returning `toolError(...)`)
 * is written back like a value and the run goes on; returns a stop when the run
 * must end (an unknown tool, a throwing tool, a budget, a cancel). `action` is
 * redacted (its input is the private frozen copy that is recorded); `name` is the
 * tool name as the model wrote it, used only to find the tool; `recorded`: the call
 * is already in the history (a reply of several actions).
 */
async function callTool(
  run: Run,
  action: ToolCallAction,
  name: string,
  recorded = false,
): Promise<Stop | undefined> {
  const steps = run.guard.steps;
  const call = action as RecordedToolCall;
  const { callId, tool: toolName, input } = call;
  if (!recorded) recordCall(run, call);
  const ref: ToolCallRef = { run, step: steps, callId, tool: toolName };

  const tool = run.tools.get(name);
  if (tool === undefined) {
    // Skipping it, or treating it as a message, would let the model believe it ran.
    const known = run.tools.names.length > 0 ? run.tools.names.join("、") : "（无）";
    const reason = `未知工具：${toolName}（已注册：${known}）`;
    toolFailed(ref, { code: "unknown_tool", message: reason }, false);
    return { code: "unknown_tool", reason };
  }
  if (action.inputError !== undefined) {
    // The provider could not read the arguments: nothing to validate, nothing to run.
    const issue = { path: "(root)", message: action.inputError };
    const message = `工具 ${toolName} 的输入无法读取：${action.inputError}`;
    return toolErrored(ref, { code: "invalid_input", message, issues: [issue] });
  }
  let checked: ToolInputCheck;
  try {
    checked = run.tools.validate(name, input);
  } catch (error) {
    // A schema that throws (or is async) is the tool author's bug, not the model's.
    const message = errorText(error);
    toolFailed(ref, { code: "tool_error", message }, false);
    return { code: "tool_error", reason: `工具 ${toolName} 的输入校验出错：${message}` };
  }
  // Invalid input never reaches execute and is not a tool call: the model gets every
  // problem back, at its path, and may correct itself.
  if (!checked.ok) return toolErrored(ref, checked.error);

  const budget = run.guard.beforeToolCall();
  if (budget.stop) {
    toolFailed(ref, { code: budget.code, message: `未执行：${budget.reason}` }, false);
    return budget;
  }
  // Checked right before the tool runs: a cancel that landed since the model replied
  // must not count or trace a tool that never runs.
  if (run.signal?.aborted) {
    toolFailed(ref, { code: "cancelled", message: "未执行：运行已取消" }, false);
    return { code: "cancelled", reason: `工具 ${toolName} 执行前运行被取消` };
  }
  // The same object goes to authorize and execute: a tool may remember what it allowed.
  const validInput = checked.input;
  if (tool.authorize !== undefined) {
    const stop = await authorizeCall(run, ref, tool, validInput);
    if (stop !== undefined) return stop;
  }

  run.guard.recordToolCall();
  if (run.tracer.enabled) {
    run.tracer.emit({
      type: "tool_started",
      step: steps,
      callId,
      tool: toolName,
      input: boundedText(run, checked.input),
    });
  }
  const settled = await timedCall(
    run,
    (signal) => tool.execute(validInput, signal),
    run.limits.toolTimeoutMs,
  );

  if (settled.kind === "timeout") {
    if (settled.limit === "run") {
      const reason = `工具 ${toolName} 执行期间用完时间预算 ${run.limits.maxDurationMs} ms，已中止`;
      toolFailed(ref, { code: "max_duration", message: reason }, true);
      return { code: "max_duration", reason };
    }
    // Like an error the tool returned: the model may try something quicker.
    const message = `工具 ${toolName} 超过 ${run.limits.toolTimeoutMs} ms 未完成，已中止（toolTimeoutMs）`;
    return toolErrored(ref, { code: "timeout", message });
  }

  if (settled.kind === "aborted" || (settled.kind === "error" && isAbortError(settled.error))) {
    toolFailed(ref, { code: "cancelled", message: "工具执行期间运行被取消" }, true);
    return { code: "cancelled", reason: `工具 ${toolName} 执行期间运行被取消` };
  }
  if (settled.kind === "error") {
    // A throw is unexpected by definition: expected failures are returned, not thrown.
    // Redacted and bounded where it is written (toolFailed, finish).
    const message = errorText(settled.error);
    toolFailed(ref, { code: "tool_error", message }, true);
    // Even a failure caused by the cancel itself is reported as the cancel.
    if (run.signal?.aborted)
      return { code: "cancelled", reason: `工具 ${toolName} 执行期间运行被取消` };
    return { code: "tool_error", reason: `工具 ${toolName} 失败：${message}` };
  }
  if (isBlockedOutcome(settled.value)) {
    // The call was refused before it did anything: the run ends here, naming the call.
    const reason = `工具 ${action.tool} 被阻止：${run.redact(settled.value.reason)}`;
    toolFailed(ref, { code: "permission_denied", message: reason }, true);
    return { code: "permission_denied", reason };
  }
  const returnedError = asToolError(settled.value);
  if (returnedError !== undefined) return toolErrored(ref, returnedError);

  const observation = serializeObservation(settled.value, {
    redact: run.redact,
    maxChars: run.maxChars,
  });
  run.history.appendFlat({
    role: "tool",
    callId,
    tool: toolName,
    ok: true,
    content: observation.text,
    truncated: observation.truncated,
    originalLength: observation.originalLength,
  });
  run.tracer.emit({
    type: "tool_completed",
    step: steps,
    callId,
    tool: toolName,
    ok: true,
    detail: observation.text,
  });
  run.guard.recordToolResult(true);
  return afterTool(run, toolName);
}

/** The provider call of one step, retried as `run.retry` says (not at all by default). */
function callModel(
  run: Run,
  step: number,
  request: ReturnType<typeof createModelRequest>,
): Promise<CallOutcome<unknown>> {
  if (run.retry === undefined) return attemptModelCall(run, request);
  return retryModelCall(run, step, () => attemptModelCall(run, request), run.retry);
}

function attemptModelCall(
  run: Run,
  request: ReturnType<typeof createModelRequest>,
): Promise<CallOutcome<unknown>> {
  return timedCall(
    run,
    (signal) => run.provider.complete(request, signal),
    run.limits.modelTimeoutMs,
  );
}

/** A failed model call, thrown inside `withRetry` so that it can decide on it. */
class FailedModelCall {
  readonly outcome: CallOutcome<unknown>;
  readonly failure: Failure;
  /** Class, status and redacted message: what makes two failures "the same". */
  readonly fingerprint: string;

  constructor(outcome: CallOutcome<unknown>, failure: Failure, fingerprint: string) {
    this.outcome = outcome;
    this.failure = failure;
    this.fingerprint = fingerprint;
  }
}

async function retryModelCall(
  run: Run,
  step: number,
  attempt: () => Promise<CallOutcome<unknown>>,
  retry: ModelRetryOptions,
): Promise<CallOutcome<unknown>> {
  const outOfTime: CallOutcome<unknown> = { kind: "timeout", limit: "run" };
  const result = await withRetry(
    async (attemptNo) => {
      // The wait used up the run's time: end as a timed-out run, with no further call.
      if (attemptNo > 1 && run.guard.remainingMs() === 0) return outOfTime;
      const outcome = await attempt();
      const failed = failedModelCall(run, outcome);
      if (failed !== undefined) throw failed;
      return outcome;
    },
    retry.policy,
    {
      sleep: (ms, signal) => {
        // Never sleep past the run's deadline; the next attempt then sees it is over.
        const left = run.guard.remainingMs();
        return (retry.sleep ?? sleepFor)(left === undefined ? ms : Math.min(ms, left), signal);
      },
      random: retry.random ?? Math.random,
      signal: run.signal,
      failureOf: (error) => (error as FailedModelCall).failure,
      fingerprintOf: (error) => (error as FailedModelCall).fingerprint,
      decide: (input, policy, random) => {
        const decision = decideRetry(input, policy, random);
        if (decision.retry) {
          run.tracer.emit({
            type: "model_retry",
            step,
            attempt: input.attempt,
            failureClass: input.failureClass,
            delayMs: decision.delayMs,
            detail: input.fingerprint,
          });
        }
        return decision;
      },
    },
  );
  if (result.ok) return result.value;
  // A give-up or a cancel: the last attempt's own outcome says how the step ended.
  // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, withRetry fails with anything else only once the signal fired, and askModel then answers cancelled whatever the outcome
  return result.error instanceof FailedModelCall ? result.error.outcome : { kind: "aborted" };
}

/**
 * The failure of a model call that `withRetry` decides on, or undefined when the call
 * returned a value (checked later), was cancelled, or ran out of the run's time (no
 * retry can help either). An error with a `status` property (a number, or undefined
 * when the server never answered, as `@coding-agent/providers`' `ProviderError` has)
 * is a provider failure, classified by its status; any other throw is a `bug`.
 */
function failedModelCall(run: Run, outcome: CallOutcome<unknown>): FailedModelCall | undefined {
  if (outcome.kind === "value" || outcome.kind === "aborted") return undefined;
  if (outcome.kind === "timeout") {
    if (outcome.limit === "run") return undefined;
    const failure: Failure = { source: "stop", code: "model_timeout" };
    return new FailedModelCall(outcome, failure, "retryable model_timeout");
  }
  if (isAbortError(outcome.error)) return undefined;
  const failure = providerFailure(outcome.error);
  const failureClass: FailureClass = classifyFailure(failure);
  const status = failure.source === "provider" ? ` ${failure.status ?? "no_response"}` : "";
  const text = truncateMiddle(run.redact(errorText(outcome.error)), MAX_FINGERPRINT_CHARS).text;
  return new FailedModelCall(outcome, failure, `${failureClass}${status} ${text}`);
}

/** Longest error text in a fingerprint (and in a `model_retry` event's detail). */
const MAX_FINGERPRINT_CHARS = 500;

function providerFailure(error: unknown): Failure {
  try {
    if (typeof error === "object" && error !== null && "status" in error) {
      const { status } = error as { status: unknown };
      if (status === undefined || typeof status === "number") return { source: "provider", status };
    }
  } catch {
    // A hostile error (a throwing getter, a revoked Proxy) is not a provider's answer.
  }
  return { source: "thrown", error };
}

/** The default retry wait: a timer, cleared as soon as the signal aborts. */
function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** How a timed call ended: as `Settled`, or which time limit fired first. */
type CallOutcome<T> = Settled<T> | { readonly kind: "timeout"; readonly limit: "call" | "run" };

/**
 * Runs one provider or tool call under the run's time limits: its own timeout
 * (`modelTimeoutMs` / `toolTimeoutMs`) and what is left of `maxDurationMs`,
 * whichever ends first, and the run's signal. A timed call gets a signal of its
 * own, aborted when its time is up; without any time limit the call gets the
 * run's signal and one listener serves the whole run (the fast path).
 */
function timedCall<T>(
  run: Run,
  call: (signal: AbortSignal) => T | PromiseLike<T>,
  callMs: number | undefined,
): Promise<CallOutcome<T>> {
  const runMs = run.guard.remainingMs();
  if (runMs === undefined && callMs === undefined) {
    return run.race.settle(() => call(run.callSignal));
  }
  // On a tie the run's deadline is named: the run is over either way.
  const runFirst = runMs !== undefined && (callMs === undefined || runMs <= callMs);
  const ms = runFirst ? (runMs ?? 0) : (callMs ?? 0);
  return settleWithTimeout(call, ms, run.signal).then((settled) =>
    settled.kind === "timeout" ? { kind: "timeout", limit: runFirst ? "run" : "call" } : settled,
  );
}

/**
 * Asks the tool whether the call may run. A refusal, a cancel while it decides and an
 * `authorize` that throws all end the run before the call starts: it is answered in
 * the history (every call has its result) but not counted and not traced as started,
 * since nothing ran.
 */
async function authorizeCall(
  run: Run,
  ref: ToolCallRef,
  tool: Tool,
  input: ToolInput,
): Promise<Stop | undefined> {
  // Waiting for an answer spends the run's time: its deadline applies, not toolTimeoutMs
  // (how long to wait for a person is the tool's own limit).
  const settled = await timedCall(run, (signal) => tool.authorize?.(input, signal), undefined);
  if (settled.kind === "timeout") {
    const reason = `工具 ${ref.tool} 等待许可时用完时间预算 ${run.limits.maxDurationMs} ms`;
    toolFailed(ref, { code: "max_duration", message: `未执行：${reason}` }, false);
    return { code: "max_duration", reason };
  }
  if (
    settled.kind === "aborted" ||
    (settled.kind === "error" && isAbortError(settled.error)) ||
    run.signal?.aborted
  ) {
    toolFailed(ref, { code: "cancelled", message: "未执行：等待许可时运行被取消" }, false);
    return { code: "cancelled", reason: `工具 ${ref.tool} 等待许可时运行被取消` };
  }
  if (settled.kind === "error") {
    // A permission check that breaks never lets the call through.
    const problem = `许可检查出错：${errorText(settled.error)}`;
    toolFailed(ref, { code: "tool_error", message: `未执行：${problem}` }, false);
    return { code: "tool_error", reason: `工具 ${ref.tool} 的${problem}` };
  }
  if (!isBlockedOutcome(settled.value)) return undefined;
  const reason = `工具 ${ref.tool} 被阻止：${run.redact(settled.value.reason)}`;
  toolFailed(ref, { code: "permission_denied", message: reason }, false);
  return { code: "permission_denied", reason };
}

/**
 * Writes an expected error back as the call's result, so the model can correct
 * itself, and counts it: too many in a row stop the run (`max_tool_errors`).
 */
function toolErrored(call: ToolCallRef, error: ToolError): Stop | undefined {
  toolFailed(call, error, true);
  const budget = call.run.guard.recordToolResult(false);
  if (budget.stop) return budget;
  return afterTool(call.run, call.tool);
}

/** Checked after every tool: a cancel that landed as the tool ended stops the run here. */
function afterTool(run: Run, tool: string): Stop | undefined {
  if (run.signal?.aborted) return { code: "cancelled", reason: `工具 ${tool} 完成后运行被取消` };
  return undefined;
}

/**
 * The error a tool returned (`{ ok: false, error: { code, message } }`), or
 * undefined for any other value. Never throws, even on a hostile value.
 */
function asToolError(value: unknown): ToolError | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    if ((value as { ok?: unknown }).ok !== false) return undefined;
    const parsed = ToolErrorResultSchema.safeParse(value);
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/** Ends a model call that produced no usable action (traced as a failed completion). */
function modelFailed(run: Run, step: number, code: StopCode, text: string): ModelReply {
  const reason = clip(run, text);
  run.tracer.emit({ type: "model_completed", step, ok: false, detail: reason });
  return { kind: "stop", code, reason };
}

interface ToolCallRef {
  readonly run: Run;
  readonly step: number;
  readonly callId: string;
  readonly tool: string;
}

/**
 * Records a tool call that did not produce a value, so every tool call in the
 * history has its result: the error (redacted and bounded) and the text the model
 * sees. Traces the completion when the tool had started or the error is expected.
 */
function toolFailed(call: ToolCallRef, raw: ToolError, traced: boolean): void {
  const { run, step, callId, tool } = call;
  const error = cleanToolError(run, raw);
  const content = serializeObservation({ ok: false, error }, { maxChars: run.maxChars }).text;
  run.history.append({ role: "tool", callId, tool, ok: false, error, content });
  if (traced)
    run.tracer.emit({ type: "tool_completed", step, callId, tool, ok: false, detail: content });
}

/** A tool error with every text redacted and bounded (a tool may put anything in it). */
function cleanToolError(run: Run, error: ToolError): ToolError {
  const text = (value: string) => clip(run, value);
  const cleaned = { code: text(error.code), message: text(error.message) };
  if (error.issues === undefined) return cleaned;
  return {
    ...cleaned,
    issues: error.issues
      .slice(0, MAX_ISSUES)
      .map((issue) => ({ path: text(issue.path), message: text(issue.message) })),
  };
}

/** Issues kept per error: enough to correct an input, never a flood. */
const MAX_ISSUES = 20;

function finish(run: Run, code: StopCode, text: string, summary?: string): RunResult {
  // Every reason is redacted and bounded here, whatever it quotes (an error, a reply, a name).
  const reason = clip(run, text);
  const counters = run.guard.counters();
  const status = statusOf(code);
  const result: RunResult = Object.freeze({
    status,
    code,
    reason,
    summary: summary ?? reason,
    steps: counters.steps,
    toolCalls: counters.toolCalls,
    usage: counters.usage,
    messages: run.history.view(),
  });
  // Emitted on every path, cancel and failure included.
  run.tracer.emit({
    type: "run_finished",
    status,
    code,
    reason,
    steps: counters.steps,
    toolCalls: counters.toolCalls,
    usage: counters.usage,
  });
  return result;
}

/** The caller's limits, tightened by the task's own budgets: the smaller of each wins. */
function tightestLimits(limits: Limits, budgets: TaskBudgets | undefined): Limits {
  if (budgets === undefined) return limits;
  const min = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  const merged: Limits = {
    maxSteps: Math.min(limits.maxSteps, budgets.maxSteps ?? limits.maxSteps),
  };
  const maxToolCalls = min(limits.maxToolCalls, budgets.maxToolCalls);
  const maxTokens = min(limits.maxTokens, budgets.maxTokens);
  const maxDurationMs = min(limits.maxDurationMs, budgets.maxDurationMs);
  const modelTimeoutMs = min(limits.modelTimeoutMs, budgets.modelTimeoutMs);
  const toolTimeoutMs = min(limits.toolTimeoutMs, budgets.toolTimeoutMs);
  const maxRepeatedActions = min(limits.maxRepeatedActions, budgets.maxRepeatedActions);
  const maxToolErrors = min(limits.maxToolErrors, budgets.maxToolErrors);
  if (maxToolCalls !== undefined) merged.maxToolCalls = maxToolCalls;
  if (maxTokens !== undefined) merged.maxTokens = maxTokens;
  if (maxDurationMs !== undefined) merged.maxDurationMs = maxDurationMs;
  if (modelTimeoutMs !== undefined) merged.modelTimeoutMs = modelTimeoutMs;
  if (toolTimeoutMs !== undefined) merged.toolTimeoutMs = toolTimeoutMs;
  if (maxRepeatedActions !== undefined) merged.maxRepeatedActions = maxRepeatedActions;
  if (maxToolErrors !== undefined) merged.maxToolErrors = maxToolErrors;
  return merged;
}

/** Longest tool name or call id recorded; a longer one is cut (a real one is far shorter). */
const MAX_IDENTIFIER_CHARS = 200;

/** The task as the model and the history see it: every text redacted. */
function redactTask(task: Task, redact: Redactor): Task {
  return {
    ...task,
    goal: redact(task.goal),
    ...(task.workspace === undefined ? {} : { workspace: redact(task.workspace) }),
    ...(task.constraints === undefined ? {} : { constraints: task.constraints.map(redact) }),
  };
}

/**
 * The action as it is recorded: texts, tool name, call id and every input key and
 * string redacted; names bounded; the call id made unique in the run; the input a
 * private, frozen copy (the tool gets exactly what the history records).
 */
function redactAction(run: Run, action: Action, defaultCallId: string): Action {
  switch (action.type) {
    case "message":
      return { type: "message", content: run.redact(action.content) };
    case "finish":
      return { type: "finish", summary: run.redact(action.summary) };
    case "tool_call":
      return {
        type: "tool_call",
        tool: identifier(run, action.tool),
        input: deepFreeze(redactJson(run.redact, action.input)) as ToolCallAction["input"],
        // The default id is the runtime's own text: nothing in it to redact or bound.
        callId: uniqueCallId(
          run,
          action.callId === undefined ? defaultCallId : identifier(run, action.callId),
        ),
        ...(action.inputError === undefined ? {} : { inputError: clip(run, action.inputError) }),
      };
    // Stryker disable next-line ConditionalExpression,BlockStatement: unreachable, parseAction yields only the three action types
    default: {
      const unreachable: never = action;
      // Stryker disable next-line StringLiteral: unreachable, see the default above
      throw new TypeError(`unhandled action ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The id (redacted and bounded) suffixed until it is unused in this run. */
function uniqueCallId(run: Run, base: string): string {
  let callId = base;
  for (let n = 2; run.callIds.has(callId); n += 1) callId = `${base}_${n}`;
  run.callIds.add(callId);
  return callId;
}

function identifier(run: Run, text: string): string {
  return truncateMiddle(run.redact(text), MAX_IDENTIFIER_CHARS).text;
}

/** Redacted and bounded by the run's cap: for error texts and reasons. */
function clip(run: Run, text: string): string {
  return truncateMiddle(run.redact(text), run.maxChars).text;
}

/**
 * JSON data with every string and key redacted. The data is the private copy
 * `parseAction` made of the reply, so a part in which nothing is masked (almost every
 * part) is kept as it is instead of being copied again; a part with a secret is copied.
 */
function redactJson(redact: Redactor, value: unknown): unknown {
  if (typeof value === "string") return redact(value);
  if (typeof value !== "object" || value === null) return value;
  // Mutation testing: copying more than needed (every array, every record, the item past
  // an array's end, which reads undefined) gives the same data, and so does changing the
  // private copy in place: only the allocations differ. Those mutants are left in the
  // count where the same line holds mutants the tests kill.
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const redacted = redactJson(redact, item);
      if (redacted === item) continue;
      // Stryker disable next-line MethodExpression: equivalent, see above
      out ??= value.slice();
      out[index] = redacted;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (redact(key) !== key || redactJson(redact, item) !== item) {
      return redactRecord(redact, record);
    }
  }
  return record;
}

/** A copy of a record with every key and value redacted; `__proto__` stays a data key. */
function redactRecord(redact: Redactor, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const item = redactJson(redact, record[key]);
    // Assigning "__proto__" would set the prototype instead of copying the data.
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: item,
        enumerable: true,
        // Stryker disable next-line BooleanLiteral: equivalent, the copy is deep-frozen next (redactAction), which makes it read-only
        writable: true,
        // Stryker disable next-line BooleanLiteral: equivalent, as above: frozen, so not configurable
        configurable: true,
      });
    } else {
      out[redact(key)] = item;
    }
  }
  return out;
}

/** Longest action or input text in a trace event (a trace is for reading, not replay). */
const MAX_TRACE_DETAIL_CHARS = 2_000;

/** Bounded, redacted text of an action or input, for the trace only. */
function boundedText(run: Run, value: unknown): string {
  return serializeObservation(value, {
    redact: run.redact,
    maxChars: Math.min(MAX_TRACE_DETAIL_CHARS, run.maxChars),
  }).text;
}

/** Any thrown value as text. Never throws (see `errorMessage`). */
function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  if (typeof error !== "object" || error === null) return String(error);
  let isError: boolean;
  try {
    isError = error instanceof Error;
  } catch {
    return errorMessage(error);
  }
  if (isError) return errorMessage(error);
  try {
    return stableStringify(error);
  } catch {
    return errorMessage(error);
  }
}
