import { errorText, isAbortError } from "./errors.ts";
import { classifyFailure, type Failure, type FailureClass } from "./failure.ts";
import type { ModelRequest, Provider } from "./provider.ts";
import { decideRetry, type ModelRetryOptions, retryWait, withRetry } from "./retry.ts";
import { clip, type Run } from "./run-state.ts";
import { truncateMiddle } from "./serialize.ts";
import { type CallOutcome, timedCall } from "./timed-call.ts";
import type { StopCode } from "./trace.ts";

/** What the provider answered (not yet validated), or why the step ends the run. */
export type ModelAnswer =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "stop"; readonly code: StopCode; readonly reason: string };

/**
 * The provider call of one step: under `modelTimeoutMs` and the run's deadline, raced
 * against cancel, retried as `run.retry` says (not at all by default), then, when the
 * run's model failed retryably to the end, asked of `run.retry.fallback`. `answerOf` then
 * says what came of it.
 */
export async function callModel(
  run: Run,
  step: number,
  request: ModelRequest,
): Promise<CallOutcome<unknown>> {
  const retry = run.retry;
  if (retry === undefined) return attemptModelCall(run, run.provider, request);
  const fallback = retry.fallback;
  const provider = run.onFallback && fallback !== undefined ? fallback.provider : run.provider;
  const first = await retryModelCall(run, step, provider, request, retry);
  if (fallback === undefined || run.onFallback || first.gaveUp === undefined) return first.outcome;
  // The run's own model failed retryably on every attempt: the fallback is asked, once per
  // run (from here on the run stays on it). A `model_retry` naming it says so in the trace.
  run.onFallback = true;
  run.tracer.emit({
    type: "model_retry",
    step,
    attempt: first.gaveUp.attempts,
    failureClass: "retryable",
    delayMs: 0,
    detail: first.gaveUp.fingerprint,
    fallbackModel: fallback.model,
  });
  return (await retryModelCall(run, step, fallback.provider, request, retry)).outcome;
}

function attemptModelCall(
  run: Run,
  provider: Provider,
  request: ModelRequest,
): Promise<CallOutcome<unknown>> {
  return timedCall(run, (signal) => provider.complete(request, signal), run.limits.modelTimeoutMs);
}

/**
 * What the provider answered (not yet validated); a call that did not answer is traced
 * as a failed completion and becomes the stop it caused.
 */
export function answerOf(run: Run, step: number, settled: CallOutcome<unknown>): ModelAnswer {
  // An abort during the call wins over whatever the provider did or will do.
  if (settled.kind === "aborted" || run.signal?.aborted)
    return modelFailed(run, step, "cancelled", "模型调用期间运行被取消");
  if (settled.kind === "timeout") {
    // Both end the run budget_exceeded: a per-call limit is a budget like the run's own.
    if (settled.limit === "run") {
      const reason =
        settled.reason ?? `模型调用期间用完时间预算 ${run.limits.maxDurationMs} ms，调用已中止`;
      return modelFailed(run, step, "max_duration", reason);
    }
    const reason = `模型调用超过 ${run.limits.modelTimeoutMs} ms 未返回，已中止（modelTimeoutMs）`;
    return modelFailed(run, step, "model_timeout", reason);
  }
  if (settled.kind === "error") {
    if (isAbortError(settled.error)) return modelFailed(run, step, "cancelled", "模型调用被中止");
    return modelFailed(run, step, "provider_error", `模型调用失败：${errorText(settled.error)}`);
  }
  return settled;
}

/** Ends a model call that produced no usable action (traced as a failed completion). */
export function modelFailed(
  run: Run,
  step: number,
  code: StopCode,
  text: string,
): Extract<ModelAnswer, { kind: "stop" }> {
  const reason = clip(run, text);
  run.tracer.emit({ type: "model_completed", step, ok: false, detail: reason });
  return { kind: "stop", code, reason };
}

/** A failed model call, thrown inside `withRetry` so that it can decide on it. */
class FailedModelCall {
  readonly outcome: CallOutcome<unknown>;
  readonly failure: Failure;
  /** Class, status and redacted message: what makes two failures "the same". */
  readonly fingerprint: string;
  /** How long the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfterMs: number | undefined;

  constructor(
    outcome: CallOutcome<unknown>,
    failure: Failure,
    fingerprint: string,
    retryAfterMs?: number,
  ) {
    this.outcome = outcome;
    this.failure = failure;
    this.fingerprint = fingerprint;
    this.retryAfterMs = retryAfterMs;
  }
}

/** How one model's attempts ended; `gaveUp` when its last failure was still retryable. */
interface Attempts {
  readonly outcome: CallOutcome<unknown>;
  readonly gaveUp?: { readonly attempts: number; readonly fingerprint: string };
}

async function retryModelCall(
  run: Run,
  step: number,
  provider: Provider,
  request: ModelRequest,
  retry: ModelRetryOptions,
): Promise<Attempts> {
  const outOfTime: CallOutcome<unknown> = { kind: "timeout", limit: "run" };
  /** Set when a wait the server asked for would end past the run's time budget. */
  let pastBudget: CallOutcome<unknown> | undefined;
  /** The failure `decide` is deciding on (withRetry hands it only its fingerprint). */
  let lastFailure: FailedModelCall | undefined;
  const result = await withRetry(
    async (attemptNo) => {
      // The wait used up the run's time: end as a timed-out run, with no further call.
      if (attemptNo > 1 && run.guard.remainingMs() === 0) return outOfTime;
      const outcome = await attemptModelCall(run, provider, request);
      const failed = failedModelCall(run, outcome);
      lastFailure = failed;
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
        const asked = lastFailure?.retryAfterMs;
        // A server that says when to come back says waiting changes the answer: the same
        // failure twice is not a reason to give up then, only the attempts and the budget are.
        let decision = decideRetry(
          asked === undefined ? input : { ...input, previousFingerprint: undefined },
          policy,
          random,
        );
        if (decision.retry && asked !== undefined) {
          // The server said how long: at least that, and never a wait the budget cannot hold.
          const left = run.guard.remainingMs();
          const wait = (retry.wait ?? retryWait)({
            backoffMs: decision.delayMs,
            retryAfterMs: asked,
            remainingMs: left,
          });
          if (wait.kind === "past_budget") {
            pastBudget = {
              kind: "timeout",
              limit: "run",
              reason: `服务器要求等待 ${wait.ms} ms 后重试（Retry-After），超过剩余的时间预算 ${left} ms（共 ${run.limits.maxDurationMs} ms），没有等待，运行停止`,
            };
            return { retry: false, reason: "attempts_exhausted" };
          }
          if (wait.kind === "too_long") return { retry: false, reason: "attempts_exhausted" };
          decision = { retry: true, delayMs: wait.ms };
        }
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
  if (pastBudget !== undefined) return { outcome: pastBudget };
  if (result.ok) return { outcome: result.value };
  // A give-up or a cancel: the last attempt's own outcome says how the step ended
  // (withRetry fails with anything else only once the signal fired: then it is a cancel).
  if (!(result.error instanceof FailedModelCall)) return { outcome: { kind: "aborted" } };
  const failed = result.error;
  const retryable =
    (result.reason === "attempts_exhausted" || result.reason === "same_failure") &&
    classifyFailure(failed.failure) === "retryable";
  return retryable
    ? {
        outcome: failed.outcome,
        gaveUp: { attempts: result.attempts, fingerprint: failed.fingerprint },
      }
    : { outcome: failed.outcome };
}

/**
 * The failure of a model call that `withRetry` decides on, or undefined when the call
 * returned a value (checked later), was cancelled, or ran out of the run's time (no
 * retry can help either). An error with a `status` property (a number, or undefined
 * when the server never answered, as `@coding-agent/providers`' `ProviderError` has)
 * is a provider failure, classified by its status; any other throw is a `bug`.
 */
function failedModelCall(run: Run, outcome: CallOutcome<unknown>): FailedModelCall | undefined {
  if (outcome.kind === "timeout") {
    if (outcome.limit === "run") return undefined;
    const failure: Failure = { source: "stop", code: "model_timeout" };
    return new FailedModelCall(outcome, failure, "retryable model_timeout");
  }
  if (outcome.kind !== "error") return undefined;
  if (isAbortError(outcome.error)) return undefined;
  const failure = providerFailure(outcome.error);
  const failureClass: FailureClass = classifyFailure(failure);
  const status = failure.source === "provider" ? ` ${failure.status ?? "no_response"}` : "";
  const text = truncateMiddle(run.redact(errorText(outcome.error)), MAX_FINGERPRINT_CHARS).text;
  return new FailedModelCall(
    outcome,
    failure,
    `${failureClass}${status} ${text}`,
    retryAfterOf(outcome.error),
  );
}

/** Longest error text in a fingerprint (and in a `model_retry` event's detail). */
const MAX_FINGERPRINT_CHARS = 500;

/** A provider error's `retryAfterMs` (its server's `Retry-After`), when it is a usable wait. */
function retryAfterOf(error: unknown): number | undefined {
  try {
    const { retryAfterMs } = error as { retryAfterMs?: unknown };
    return typeof retryAfterMs === "number" && Number.isFinite(retryAfterMs) && retryAfterMs >= 0
      ? retryAfterMs
      : undefined;
  } catch {
    return undefined;
  }
}

function providerFailure(error: unknown): Failure {
  try {
    // `in` throws for a text, a number, null or undefined: none of them is a provider's answer.
    if ("status" in (error as object)) {
      const { status } = error as { status: unknown };
      if (status === undefined || typeof status === "number") return { source: "provider", status };
    }
  } catch {
    // Not an object, or a hostile one (a throwing getter, a revoked Proxy).
  }
  return { source: "thrown", error };
}

/**
 * The default retry wait: a timer, cut short when the signal aborts (`withRetry` never
 * sleeps on a signal that has fired; the listener goes as soon as the wait ends).
 */
function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}
