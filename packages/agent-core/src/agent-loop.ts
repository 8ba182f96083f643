import { createAbortRace } from "./abortable.ts";
import { type Action, parseAction } from "./action.ts";
import { needsApproval, toolApproval } from "./approval.ts";
import { checkCost, costOf } from "./cost.ts";
import { deepFreeze } from "./deep-freeze.ts";
import { InvalidTaskError } from "./errors.ts";
import { chainExtensions } from "./extension.ts";
import { afterReply, beforeModelCall, onFinish, traceListeners } from "./extension-points.ts";
import { formatValueIssues } from "./issues.ts";
import {
  guardOfRun,
  type Limits,
  parseLimits,
  performanceClock,
  tightenLimits,
} from "./loop-guard.ts";
import { createRunHistory, type Message } from "./messages.ts";
import { answerOf, callModel, modelFailed } from "./model-call.ts";
import {
  createModelRequest,
  type ModelRequest,
  type Provider,
  parseModelResponse,
  type TokenUsage,
} from "./provider.ts";
import { keptReasoning, type ReplyReasoning } from "./reasoning.ts";
import { redactorForEnvironment } from "./redact.ts";
import { redactAction, redactTask } from "./redact-action.ts";
import { checkPolicy } from "./retry.ts";
import { takeAccount } from "./run-account.ts";
import { checkRunOptions, type RunOptions } from "./run-options.ts";

export type { RunOptions } from "./run-options.ts";

import { boundedText, callCost, clip, type Run, type Stop, traceStop } from "./run-state.ts";
import { DEFAULT_MAX_OBSERVATION_CHARS } from "./serialize.ts";
import { parseTask, renderTask, type Task } from "./task.ts";
import { runCalls } from "./tool-batch.ts";
import type { PendingCall, RecordedToolCall } from "./tool-call.ts";
import { createToolRegistry, isToolRegistry, type ToolRegistry, type ToolSet } from "./tools.ts";
import { createTracer, type RunStatus, type StopCode, statusOf } from "./trace.ts";

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
  /** What the model calls cost in USD; null when the model's price is unknown (or not given). */
  readonly costUsd: number | null;
  /** The whole history, read-only. */
  readonly messages: readonly Message[];
  /**
   * The model that gave the run's last valid reply, when the provider names it: the
   * fallback's name once `retry.fallback` answered. Absent for providers that name none.
   */
  readonly model?: string;
}

/**
 * Runs the agent loop: observe, ask the model, act, write the observation back,
 * until the model finishes or the runtime stops the run. Never rejects for a
 * run's outcome (a failing tool, a bad reply, a budget, a cancel): it resolves to
 * a `RunResult`. It throws only for a caller's mistake: an invalid task, limits or options.
 */
export async function runAgent(
  task: Task | string,
  provider: Provider,
  tools: ToolSet | ToolRegistry,
  limits: Limits,
  signal?: AbortSignal,
  options: RunOptions = {},
): Promise<RunResult> {
  const run = prepareRun(task, provider, tools, limits, signal, options);
  try {
    const result = await loop(run.run, run.callerLimits);
    // A write still under way when the run ended can fail too: its failure is the run's.
    await run.run.tracer.settled();
    return traceFailedAtEnd(run.run, result);
  } finally {
    run.run.race.dispose();
  }
}

/**
 * A result whose required trace failed on the way to it (its last events did not reach
 * the sink): `failed`, `trace_failed`, what the run did kept. A run already stopped for
 * its trace keeps its result.
 */
function traceFailedAtEnd(run: Run, result: RunResult): RunResult {
  const failure = run.tracer.failure;
  if (failure === undefined || result.code === "trace_failed") return result;
  const reason = clip(run, failure);
  return Object.freeze({
    ...result,
    status: statusOf("trace_failed"),
    code: "trace_failed",
    reason,
    summary: reason,
  });
}

/** Validates what the caller passed and builds the run's state (per-run work only). */
function prepareRun(
  task: Task | string,
  provider: Provider,
  tools: ToolSet | ToolRegistry,
  limits: Limits,
  signal: AbortSignal | undefined,
  options: RunOptions,
): { readonly run: Run; readonly callerLimits: Limits } {
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
  const { maxFinishRejections, price, fallbackPrice, maxCostUsd } = checkRunOptions(options);
  const runLimits = tightenLimits(callerLimits, parsedTask.task.budgets);
  const registry = isToolRegistry(tools) ? tools : createToolRegistry(tools);
  const extensions = [...(options.extensions ?? [])];
  // The tool's own permission check comes last: an extension that answers a call spares it.
  if (needsApproval(registry)) extensions.push(toolApproval);
  // Taken last: a run that throws before it starts leaves the account free for the next.
  const account = takeAccount(options.account);
  const run: Run = {
    task: deepFreeze(redactTask(parsedTask.task, redact)),
    provider,
    tools: registry,
    guard: guardOfRun(runLimits, clock),
    limits: runLimits,
    history: createRunHistory(),
    tracer: createTracer(traceListeners(extensions, options.trace), clock, options.requiredTrace),
    redact,
    maxChars: options.maxObservationChars ?? DEFAULT_MAX_OBSERVATION_CHARS,
    signal,
    callSignal: signal ?? new AbortController().signal,
    race: createAbortRace(signal),
    callIds: new Set(),
    retry: options.retry,
    onFallback: false,
    lastModel: undefined,
    extensions: chainExtensions(extensions),
    maxFinishRejections,
    finishRejections: 0,
    price,
    fallbackPrice,
    maxCostUsd,
    costOf: options.costOf ?? costOf,
    costUsd: 0,
    costKnown: true,
    account,
  };
  account?.bind(run);
  return { run, callerLimits };
}

/**
 * The lesson's state machine: preflight → model → act (→ observe, inside each tool
 * call) → preflight …, until a phase answers a stop or a finish is accepted.
 */
async function loop(run: Run, limits: Limits): Promise<RunResult> {
  run.history.appendFlat({ role: "user", content: renderTask(run.task) });
  // A frozen copy: a sink keeps what it is given, and must not hold the caller's object.
  run.tracer.emit({ type: "run_started", goal: run.task.goal, limits: Object.freeze(limits) });

  while (true) {
    const ready = preflight(run);
    if ("code" in ready) return finish(run, ready);
    let request = ready.request;
    if (run.extensions.beforeModelCall.length > 0) {
      const decided = await beforeModelCall(run, request);
      if ("stop" in decided) return finish(run, decided.stop);
      request = decided.request;
      for (const compaction of decided.compactions) {
        // Texts (call ids, tool names, artifact ids) are redacted: the trace holds no secret.
        const results = compaction.results.map((result) => ({
          callId: clip(run, result.callId),
          tool: clip(run, result.tool),
          artifactId: clip(run, result.artifactId),
        }));
        run.tracer.emit({
          type: "compacted",
          step: request.step,
          estimatedTokens: compaction.estimatedTokens,
          compactedTokens: compaction.compactedTokens,
          maxContextTokens: compaction.maxContextTokens,
          results,
          totalCompacted: compaction.totalCompacted,
        });
      }
    }
    const reply = await model(run, request);
    if (reply.kind === "stop") return finish(run, reply);
    const outcome = await act(run, reply);
    if (outcome !== undefined) return finish(run, outcome);
  }
}

/** Before a model call: cancel and the guard's budgets; then the request (extensions next). */
function preflight(run: Run): Stop | { readonly request: ModelRequest } {
  // A cancelled run makes no further model call (and so no further cost).
  if (run.signal?.aborted) return { code: "cancelled", reason: "运行已取消" };
  const traced = traceStop(run);
  if (traced !== undefined) return traced;
  const budget = run.guard.beforeModelCall();
  if (budget.stop) return budget;
  const cost = checkCost(run.costUsd, run.maxCostUsd);
  if (cost.stop) return cost;
  // Then the run's own spending with what was charged to its account (a subagent's).
  const charged = run.account?.beforeModelCall();
  if (charged?.stop) return charged;
  const request = createModelRequest({
    task: run.task,
    messages: run.history.view(),
    step: run.guard.steps + 1,
    tools: run.tools.descriptions,
  });
  return { request };
}

/**
 * A valid reply, redacted as it will be recorded: each tool call's `callId` set and
 * unique in the run, each with the tool name as the model wrote it, for the lookup.
 */
type Reply =
  | {
      readonly kind: "act";
      readonly actions: readonly Action[];
      readonly names: readonly string[];
      readonly reasoning?: ReplyReasoning;
    }
  | ({ readonly kind: "stop" } & Stop);

/**
 * One model call: request, race against cancel, validate, count, check repeats. A reply
 * of one `action` is a list of one; a reply of several `actions` may not hold a finish
 * (a finish ends a run, so it cannot share a reply with more work).
 */
async function model(run: Run, request: ModelRequest): Promise<Reply> {
  const step = request.step;
  run.tracer.emit({ type: "model_started", step });
  // A trace that cannot record this call does not pay for it (the optional sinks still
  // see the call end, so their events stay paired).
  const untraced = traceStop(run);
  if (untraced !== undefined) {
    return modelFailed(run, step, untraced.code, `未调用模型：${untraced.reason}`);
  }
  const answer = answerOf(run, step, await callModel(run, step, request));
  if (answer.kind === "stop") return answer;
  const response = parseModelResponse(answer.value);
  if (!response.ok) return modelFailed(run, step, "invalid_action", response.reason);
  const { usage } = response.response;
  run.guard.recordUsage(usage);
  // The model that answered: as the provider names it, else the fallback's name when it answered.
  const answeredBy =
    response.response.model ?? (run.onFallback ? run.retry?.fallback?.model : undefined);
  if (answeredBy !== undefined) run.lastModel = answeredBy;
  // Tokens are paid for whether or not the reply turns out valid.
  const costUsd = callCost(run, usage);
  if (costUsd === false) {
    return modelFailed(run, step, "extension_error", "costOf 没有给出有效的成本（有限、非负的数）");
  }
  if (costUsd === null) run.costKnown = false;
  else run.costUsd += costUsd;

  const single = response.response.actions === undefined;
  const replies = single ? [response.response.action] : (response.response.actions ?? []);
  const parsed: Action[] = [];
  for (let index = 0; index < replies.length; index += 1) {
    const action = parseAction(replies[index]);
    // An invalid reply is not a step: steps count valid replies only.
    if (!action.ok) {
      const where = single ? "" : `actions[${index}]：`;
      return modelFailed(run, step, "invalid_action", `模型回复无效：${where}${action.reason}`);
    }
    if (!single && action.action.type === "finish") {
      const reason = `模型回复无效：actions[${index}] 是 finish，finish 只能单独回复`;
      return modelFailed(run, step, "invalid_action", reason);
    }
    parsed.push(action.action);
  }

  // From here on only the redacted actions exist: history, trace, guard and tools see them.
  const actions: Action[] = [];
  const names: string[] = [];
  let calls = 0;
  for (const action of parsed) {
    if (action.type === "tool_call") calls += 1;
    // One action keeps the id `call_<step>`; several are numbered `call_<step>_<n>`.
    const callId = single ? `call_${step}` : `call_${step}_${calls}`;
    actions.push(redactAction(run, action, callId));
    names.push(action.type === "tool_call" ? action.tool : "");
  }
  const reasoning = keptReasoning(response.response.reasoning, run.redact);
  // A reply of several actions is one step, and repeats only when the whole list repeats.
  const verdict = run.guard.recordAction(single ? (actions[0] as Action) : actions);
  if (run.tracer.enabled) {
    const first = actions[0] as Action;
    run.tracer.emit({
      type: "model_completed",
      step,
      ok: true,
      ...(single ? { actionType: first.type } : {}),
      detail: boundedText(run, single ? first : actions),
      ...(reasoning?.text === undefined ? {} : { reasoning: clip(run, reasoning.text) }),
      ...(usage === undefined ? {} : { usage }),
      ...(answeredBy === undefined ? {} : { model: answeredBy }),
      ...(run.price === undefined ? {} : { costUsd }),
    });
  }
  if (verdict.stop) return { kind: "stop", code: verdict.code, reason: verdict.reason };
  const traced = traceStop(run);
  if (traced !== undefined) return { kind: "stop", ...traced };
  if (run.extensions.afterReply.length > 0) {
    const messages = run.history.view();
    const info = {
      step,
      actions,
      messages,
      ...(usage === undefined ? {} : { usage }),
      ...(answeredBy === undefined ? {} : { model: answeredBy }),
      ...(reasoning === undefined ? {} : { reasoning }),
    };
    const stop = await afterReply(run, info);
    if (stop !== undefined) return { kind: "stop", ...stop };
  }
  return { kind: "act", actions, names, ...(reasoning === undefined ? {} : { reasoning }) };
}

/**
 * Acts on a reply, as the model APIs require: first the whole reply goes into the
 * history (its text, then every tool call), then the calls run (`runCalls`: reads side by
 * side, everything else alone, results in call order). If the run stops midway, the calls
 * not run still get a result saying so, so no call in the history is left unanswered. A
 * finish is a proposal the extensions may reject: the run then goes on with the reasons.
 */
async function act(run: Run, reply: Extract<Reply, { kind: "act" }>): Promise<Stop | undefined> {
  const calls: PendingCall[] = [];
  for (let index = 0; index < reply.actions.length; index += 1) {
    const action = reply.actions[index] as Action;
    // The reply's reasoning rides on its first message: that is where a new reply starts.
    const reasoning =
      index === 0 && reply.reasoning !== undefined ? { reasoning: reply.reasoning } : {};
    switch (action.type) {
      case "message": {
        // A message is a new observation for the next round; nothing else happens.
        const { content } = action;
        run.history.appendFlat({ role: "assistant", type: "message", content, ...reasoning });
        break;
      }
      case "finish": {
        const { summary } = action;
        run.history.appendFlat({ role: "assistant", type: "finish", summary, ...reasoning });
        return proposeFinish(run, action.summary);
      }
      case "tool_call": {
        const recorded = action as RecordedToolCall;
        const { callId, tool, input } = recorded;
        // The input is the frozen copy `redactAction` made.
        const call = { role: "assistant", type: "tool_call", callId, tool, input } as const;
        run.history.appendFlat({ ...call, ...reasoning });
        calls.push({ action: recorded, name: reply.names[index] ?? "" });
        break;
      }
      default: {
        const unreachable: never = action;
        throw new TypeError(`unhandled action ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return runCalls(run, calls);
}

/** The code of an accepted finish, which ends the run `completed` with the summary. */
interface Finished extends Stop {
  readonly summary: string;
}

/**
 * A finish proposal: accepted unless an extension rejects it. A rejection goes back to
 * the model as a `finish_rejected` message, and the run goes on, until the rejections
 * reach `maxFinishRejections` (counted over the whole run).
 */
async function proposeFinish(run: Run, summary: string): Promise<Stop | Finished | undefined> {
  const accepted: Finished = { code: "finished", reason: "模型提出完成", summary };
  if (run.extensions.onFinish.length === 0) return accepted;
  const step = run.guard.steps;
  const decision = await onFinish(run, { step, summary, messages: run.history.view() });
  if (decision === undefined) return accepted;
  if ("stop" in decision) return decision.stop;
  run.finishRejections += 1;
  const reasons = decision.reasons.map((reason) => clip(run, reason));
  const content = clip(run, decision.message);
  run.history.append({ role: "user", type: "finish_rejected", reasons, content });
  run.tracer.emit({ type: "finish_rejected", step, reasons, detail: content });
  if (run.finishRejections < run.maxFinishRejections) return undefined;
  const reason = `完成提议被拒绝 ${run.finishRejections} 次，达到上限 ${run.maxFinishRejections}：${content}`;
  return { code: "finish_rejected", reason };
}

function finish(run: Run, stop: Stop | Finished): RunResult {
  // Every reason is redacted and bounded here, whatever it quotes (an error, a reply, a name).
  const reason = clip(run, stop.reason);
  const counters = run.guard.counters();
  const status = statusOf(stop.code);
  const costUsd =
    run.price === undefined || run.price === null || !run.costKnown ? null : run.costUsd;
  const result: RunResult = Object.freeze({
    status,
    code: stop.code,
    reason,
    summary: "summary" in stop ? stop.summary : reason,
    steps: counters.steps,
    toolCalls: counters.toolCalls,
    usage: counters.usage,
    costUsd,
    messages: run.history.view(),
    ...(run.lastModel === undefined ? {} : { model: run.lastModel }),
  });
  // Emitted on every path, cancel and failure included.
  run.tracer.emit({
    type: "run_finished",
    status,
    code: stop.code,
    reason,
    steps: counters.steps,
    toolCalls: counters.toolCalls,
    usage: counters.usage,
    costUsd,
  });
  return result;
}
