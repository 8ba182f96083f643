import { z } from "zod";
import { type Action, fingerprintAction, sameAction } from "./action.ts";
import { InvalidLimitsError } from "./errors.ts";
import { formatValueIssues, toValueIssues } from "./issues.ts";
import type { TokenUsage } from "./provider.ts";
import type { TaskBudgets } from "./task.ts";

/**
 * The budgets of one run. `maxSteps` is mandatory: it is the hard upper bound on
 * model calls; every other budget is an extra, narrower protection.
 */
export const LimitsSchema = z.strictObject({
  /** Model calls that returned a valid action. */
  maxSteps: z.int().min(0),
  /** Tools that really ran (an unknown tool does not count, a failing one does). */
  maxToolCalls: z.int().min(0).optional(),
  /** Input plus output tokens over the run. */
  maxTokens: z.int().min(0).optional(),
  /**
   * Wall time of the run: checked before each model call and each tool, and a
   * model or tool call still running when it runs out is aborted (`max_duration`).
   */
  maxDurationMs: z.int().min(0).optional(),
  /** Longest one model call may take; a slower one is aborted and ends the run (`model_timeout`). */
  modelTimeoutMs: z.int().min(1).optional(),
  /**
   * Longest one tool call may take; a slower one is aborted and comes back to the
   * model as a `timeout` error (counted by `maxToolErrors`), and the run goes on.
   */
  toolTimeoutMs: z.int().min(1).optional(),
  /** Consecutive identical actions allowed (by fingerprint); the next one stops the run. */
  maxRepeatedActions: z.int().min(1).optional(),
  /** Consecutive tool error results (`ok: false`) before the run stops; default 5. */
  maxToolErrors: z.int().min(1).optional(),
});

/** Consecutive tool errors allowed when `maxToolErrors` is not given. */
export const DEFAULT_MAX_TOOL_ERRORS = 5;

/** The budgets of one run. */
export type Limits = z.infer<typeof LimitsSchema>;

/** Which budget stopped a run. */
export type BudgetCode =
  | "max_steps"
  | "max_tool_calls"
  | "max_tokens"
  | "max_duration"
  | "model_timeout"
  | "max_tool_errors"
  | "repeated_action"
  /** Tool calls that brought back nothing new (see `createLoopDetection`). */
  | "loop_detected"
  /** The parts of a request that are never compacted exceed the context budget. */
  | "context_exhausted"
  /** The run's model calls cost `maxCostUsd` or more (see `cost.ts`). */
  | "max_cost";

/** The guard's answer: go on, or stop with the budget and a readable reason. */
export type GuardVerdict =
  | { readonly stop: false }
  | { readonly stop: true; readonly code: BudgetCode; readonly reason: string };

/** What the guard has counted so far. */
export interface GuardCounters {
  readonly steps: number;
  readonly toolCalls: number;
  /** Tool error results in a row, since the last success. */
  readonly toolErrors: number;
  readonly usage: TokenUsage;
  readonly elapsedMs: number;
}

/**
 * Counts a run against its limits. Independent of the loop: the loop asks it
 * before each model call and each tool, and tells it what happened.
 */
export interface LoopGuard {
  /** Before each model call: steps, tokens and duration. */
  beforeModelCall(): GuardVerdict;
  /** Adds the tokens of a model reply, valid or not (tokens are spent either way). */
  recordUsage(usage: TokenUsage | undefined): void;
  /**
   * A valid reply arrived: counts the step, then checks for a repeat. A reply of
   * several actions is one step and repeats only when the whole list repeats.
   */
  recordAction(action: Action | readonly Action[]): GuardVerdict;
  /** Before a registered tool runs: the tool-call budget and duration. */
  beforeToolCall(): GuardVerdict;
  /** A tool is about to really run: counts it. */
  recordToolCall(): void;
  /**
   * A tool result was written back: an error adds to the consecutive-error count, a
   * success resets it. Stops once `maxToolErrors` errors came in a row.
   */
  recordToolResult(ok: boolean): GuardVerdict;
  /**
   * Milliseconds left of `maxDurationMs` (0 once it has run out), or undefined
   * without one: how long a call that starts now may run before the run's deadline.
   */
  remainingMs(): number | undefined;
  /** Steps counted so far (cheaper than `counters()`, which reads the clock). */
  readonly steps: number;
  counters(): GuardCounters;
}

/**
 * The guard `runAgent` keeps (`guardOfRun`): a `LoopGuard` whose counts can also be read one
 * by one without the clock (a run account reads them, see `run-account.ts`).
 */
export interface RunGuard extends LoopGuard {
  /** Tools that really ran so far. */
  readonly toolCalls: number;
  /** Input plus output tokens so far. */
  readonly tokens: number;
}

/** Options for `createLoopGuard`. */
export interface LoopGuardOptions {
  /** Milliseconds clock; inject one in tests. Defaults to `performance.now`. */
  readonly clock?: () => number;
}

const CONTINUE: GuardVerdict = Object.freeze({ stop: false });

/** Validates limits, throwing `InvalidLimitsError` (a configuration mistake) if they are wrong. */
export function parseLimits(limits: unknown): Limits {
  const parsed = LimitsSchema.safeParse(limits);
  if (parsed.success) return parsed.data;
  const details = formatValueIssues(toValueIssues(parsed.error.issues), "; ");
  throw new InvalidLimitsError(`invalid limits: ${details}`, { cause: parsed.error });
}

/**
 * The caller's limits, tightened by a task's own budgets: the smaller of each wins, and a
 * budget the caller did not set applies as the task gives it.
 */
export function tightenLimits(limits: Limits, budgets: TaskBudgets | undefined): Limits {
  if (budgets === undefined) return limits;
  const merged: Record<string, number> = { ...limits };
  for (const key of Object.keys(budgets) as (keyof TaskBudgets)[]) {
    const budget = budgets[key];
    if (budget === undefined) continue;
    const limit = merged[key];
    merged[key] = limit === undefined ? budget : Math.min(limit, budget);
  }
  return merged as Limits;
}

/** Creates a guard for one run; the duration clock starts now. */
export function createLoopGuard(limits: Limits, options: LoopGuardOptions = {}): LoopGuard {
  return new Guard(parseLimits(limits), options.clock ?? performanceClock, false);
}

/**
 * The guard of a run, for `runAgent`: its limits are already parsed (a run parses them
 * once, not twice), and the actions it records are the run's own, never changed once
 * recorded (their inputs are frozen), so it compares each with the last by value
 * (`sameAction`) instead of building a fingerprint per step. A guard made by
 * `createLoopGuard` may be given actions their caller changes later: it keeps a
 * fingerprint.
 */
export function guardOfRun(limits: Limits, clock: () => number): RunGuard {
  return new Guard(limits, clock, true);
}

/** The default clock: milliseconds from `performance.now`. */
export function performanceClock(): number {
  return performance.now();
}

const stop = (code: BudgetCode, reason: string): GuardVerdict => ({ stop: true, code, reason });

/**
 * The guard's state. A class, not an object literal of closures: a literal with a getter
 * (`steps`) is built by V8's slow path, several microseconds on every run.
 */
class Guard implements RunGuard {
  readonly #limits: Limits;
  readonly #clock: () => number;
  readonly #startedAt: number;
  readonly #maxToolErrors: number;
  #steps = 0;
  #toolCalls = 0;
  #toolErrors = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  /** Compare the recorded actions themselves (see `guardOfRun`), or their fingerprints. */
  readonly #byValue: boolean;
  #last: Action | readonly Action[] | undefined = undefined;
  #lastFingerprint: string | undefined = undefined;
  #repeats = 0;

  constructor(limits: Limits, clock: () => number, byValue: boolean) {
    this.#limits = limits;
    this.#clock = clock;
    this.#byValue = byValue;
    this.#startedAt = clock();
    this.#maxToolErrors = limits.maxToolErrors ?? DEFAULT_MAX_TOOL_ERRORS;
  }

  beforeModelCall(): GuardVerdict {
    const limits = this.#limits;
    // Checked before the call: maxSteps: 2 allows exactly two model calls.
    if (this.#steps >= limits.maxSteps) {
      return stop("max_steps", `已达到最大步数 ${limits.maxSteps}`);
    }
    const tokens = this.#inputTokens + this.#outputTokens;
    if (limits.maxTokens !== undefined && tokens >= limits.maxTokens) {
      return stop("max_tokens", `已用 ${tokens} 个 token，达到预算 ${limits.maxTokens}`);
    }
    return this.#checkDuration();
  }

  recordUsage(usage: TokenUsage | undefined): void {
    if (usage === undefined) return;
    this.#inputTokens += usage.inputTokens;
    this.#outputTokens += usage.outputTokens;
  }

  recordAction(action: Action | readonly Action[]): GuardVerdict {
    // A step counts when a valid reply arrives; the repeat check runs right after,
    // so the repeated action itself is counted (maxRepeatedActions: 1 stops at steps: 2).
    this.#steps += 1;
    const maxRepeated = this.#limits.maxRepeatedActions;
    if (maxRepeated === undefined) return CONTINUE;
    this.#repeats = this.#isRepeat(action) ? this.#repeats + 1 : 1;
    if (this.#repeats > maxRepeated) {
      const what = isActionList(action)
        ? `同一组 ${action.length} 个动作`
        : `同一个 ${action.type} 动作`;
      return stop(
        "repeated_action",
        `${what}连续出现 ${this.#repeats} 次，超过上限 ${maxRepeated}`,
      );
    }
    return CONTINUE;
  }

  beforeToolCall(): GuardVerdict {
    const max = this.#limits.maxToolCalls;
    if (max !== undefined && this.#toolCalls >= max) {
      return stop("max_tool_calls", `已执行 ${this.#toolCalls} 次工具调用，达到上限 ${max}`);
    }
    // A tool started after the deadline would only be aborted at once.
    return this.#checkDuration();
  }

  recordToolCall(): void {
    this.#toolCalls += 1;
  }

  recordToolResult(ok: boolean): GuardVerdict {
    // Only errors in a row count: a model that recovers between mistakes is working.
    this.#toolErrors = ok ? 0 : this.#toolErrors + 1;
    if (this.#toolErrors >= this.#maxToolErrors) {
      return stop(
        "max_tool_errors",
        `工具连续 ${this.#toolErrors} 次返回错误，达到上限 ${this.#maxToolErrors}`,
      );
    }
    return CONTINUE;
  }

  remainingMs(): number | undefined {
    const max = this.#limits.maxDurationMs;
    if (max === undefined) return undefined;
    return Math.max(0, max - (this.#clock() - this.#startedAt));
  }

  get steps(): number {
    return this.#steps;
  }

  get toolCalls(): number {
    return this.#toolCalls;
  }

  get tokens(): number {
    return this.#inputTokens + this.#outputTokens;
  }

  counters(): GuardCounters {
    return {
      steps: this.#steps,
      toolCalls: this.#toolCalls,
      toolErrors: this.#toolErrors,
      usage: { inputTokens: this.#inputTokens, outputTokens: this.#outputTokens },
      elapsedMs: this.#clock() - this.#startedAt,
    };
  }

  /** True if `action` is the same as the last one recorded; remembers it for the next. */
  #isRepeat(action: Action | readonly Action[]): boolean {
    if (this.#byValue) {
      const last = this.#last;
      this.#last = action;
      return last !== undefined && sameActions(action, last);
    }
    const fingerprint = isActionList(action)
      ? `[${action.map(fingerprintAction).join(",")}]`
      : fingerprintAction(action);
    const last = this.#lastFingerprint;
    this.#lastFingerprint = fingerprint;
    return fingerprint === last;
  }

  #checkDuration(): GuardVerdict {
    const max = this.#limits.maxDurationMs;
    if (max === undefined) return CONTINUE;
    const elapsed = this.#clock() - this.#startedAt;
    if (elapsed < max) return CONTINUE;
    return stop("max_duration", `已运行 ${Math.round(elapsed)} ms，达到时间预算 ${max} ms`);
  }
}

function isActionList(action: Action | readonly Action[]): action is readonly Action[] {
  return Array.isArray(action);
}

/** `sameAction` for a recorded reply: one action, or a list compared item by item. */
function sameActions(a: Action | readonly Action[], b: Action | readonly Action[]): boolean {
  const list = isActionList(a);
  // A list is never the same as one action. Without this line the answer would not change
  // (an action compared with a list reads fields the list lacks; a list's length is not an
  // action's), but neither is something to rely on.
  if (list !== isActionList(b)) return false;
  if (!list) return sameAction(a as Action, b as Action);
  const other = b as readonly Action[];
  if (a.length !== other.length) return false;
  for (let index = 0; index < a.length; index += 1) {
    if (!sameAction(a[index] as Action, other[index] as Action)) return false;
  }
  return true;
}
