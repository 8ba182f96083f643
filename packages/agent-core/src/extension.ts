import type { Action } from "./action.ts";
import type { Message } from "./messages.ts";
import type { ModelRequest, TokenUsage } from "./provider.ts";
import type { ReplyReasoning } from "./reasoning.ts";
import type { ToolError } from "./tool-error.ts";
import type { Tool, ToolInput } from "./tools.ts";
import type { CompactedResult, StopCode, TraceEvent } from "./trace.ts";

/**
 * A feature that plugs into the loop at the moments of a step: before each model call,
 * after each reply, before and after each tool call, when the model proposes to finish,
 * and at every trace event. Every point is optional; an extension implements the ones it
 * needs. Points that decide answer a value (`undefined` means "go on as usual"); they
 * may be async, and are awaited under the run's deadline and its cancel signal.
 *
 * Order: the extensions of `RunOptions.extensions` in array order, then the runtime's own
 * (the tool's `authorize` for a tool call; `RunOptions.trace` for trace events). At a
 * point that decides, the first answer other than "go on" wins and the rest are not
 * asked; a rewrite (a request, a tool input, a tool result) is passed on, so each later
 * extension sees the rewritten value. Every extension sees every trace event.
 *
 * A point that throws fails closed: before a tool call, the call is not run and the run
 * ends `failed` with `tool_error` (as a throwing permission check); anywhere else the run
 * ends `failed` with `extension_error`. An `onTrace` that throws is ignored, like a
 * trace sink.
 */
export interface RunExtension {
  /** Names the extension in errors and reasons. */
  readonly name: string;
  /** Before each model call: rewrite the request the provider gets, or stop the run. */
  beforeModelCall?(
    request: ModelRequest,
    signal: AbortSignal,
  ): Awaitable<BeforeModelCallDecision | undefined>;
  /** After each valid reply, before any of it is acted on: stop the run, or go on. */
  afterReply?(reply: ModelReplyInfo, signal: AbortSignal): Awaitable<ExtensionStop | undefined>;
  /** Before each tool call, once its input is valid and the budgets allow it. */
  beforeToolCall?(call: ToolCallInfo, signal: AbortSignal): Awaitable<ToolCallDecision | undefined>;
  /** After a tool call produced a value or an expected error: replace what the model sees. */
  afterToolCall?(
    call: ToolCallInfo,
    result: ToolCallResult,
    signal: AbortSignal,
  ): Awaitable<ToolResultDecision | undefined>;
  /** When the model proposes to finish: accept, or reject with reasons the model is shown. */
  onFinish?(proposal: FinishProposal, signal: AbortSignal): Awaitable<FinishDecision | undefined>;
  /** Every trace event, numbered; never changes the run. */
  onTrace?(event: TraceEvent): void | Promise<void>;
}

type Awaitable<T> = T | Promise<T>;

/** Ends the run with this code (its status follows from the code, see `statusOf`). */
export interface ExtensionStop {
  readonly kind: "stop";
  readonly code: StopCode;
  readonly reason: string;
}

export type BeforeModelCallDecision =
  | ExtensionStop
  /**
   * The provider gets this request instead (e.g. a compacted history). With `compaction`
   * the loop traces a `compacted` event for it.
   */
  | {
      readonly kind: "rewrite";
      readonly request: ModelRequest;
      readonly compaction?: Compaction;
    };

/** What a compacting rewrite did, as the `compacted` trace event reports it. */
export interface Compaction {
  readonly estimatedTokens: number;
  readonly compactedTokens: number;
  readonly maxContextTokens: number;
  readonly results: readonly CompactedResult[];
  readonly totalCompacted: number;
}

/** A reply as the run records it: redacted, each tool call with its call id. */
export interface ModelReplyInfo {
  readonly step: number;
  readonly actions: readonly Action[];
  readonly usage?: TokenUsage;
  /** The model that answered, when known (see `RunResult.model`). */
  readonly model?: string;
  /** The reasoning that came with the reply: its text redacted, its `handBack` as given. */
  readonly reasoning?: ReplyReasoning;
  /** The history before the reply is recorded. */
  readonly messages: readonly Message[];
}

/** A tool call about to run: its recorded name and id, its validated input. */
export interface ToolCallInfo {
  readonly step: number;
  readonly callId: string;
  readonly tool: string;
  readonly input: ToolInput;
  /** The tool as registered. */
  readonly definition: Tool;
}

export type ToolCallDecision =
  /** Run it (the same as answering `undefined`). */
  | { readonly kind: "run" }
  /**
   * Run it with this input instead (a hook that rewrites a call). The new input is
   * validated by the tool's schema again (invalid: the model gets `invalid_input`, the
   * call does not run) and is what every later extension — the state log, the tool's own
   * permission check — and the tool see: a rewrite cannot skip the approval gate or the
   * sandbox policy. Passed on like a request rewrite: the later extensions are still asked.
   */
  | { readonly kind: "rewrite"; readonly input: ToolInput }
  /** Do not run it; the model gets this error as the call's result, and the run goes on. */
  | { readonly kind: "veto"; readonly error: ToolError }
  /** Do not run it; the run ends `blocked` (`permission_denied`), naming the call. */
  | { readonly kind: "block"; readonly reason: string }
  /**
   * Do not run it; `value` is its result, as if the tool had returned it (counted and
   * traced as a call). How a resumed or replayed run answers a call it already made.
   */
  | { readonly kind: "answer"; readonly value: unknown }
  /**
   * Do not run it; the run ends with this code, the call answered as not run. For an
   * extension that cannot keep its promise about the call (a state log that cannot be
   * written before a side effect, `state_failed`).
   */
  | ExtensionStop;

/** What a tool call produced, before it is written back. */
export type ToolCallResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ToolError };

/** The model sees `value` instead (a value, or `toolError(...)` for an error). */
export interface ToolResultDecision {
  readonly kind: "replace";
  readonly value: unknown;
}

export interface FinishProposal {
  readonly step: number;
  readonly summary: string;
  /** The history, the proposal included. */
  readonly messages: readonly Message[];
}

export type FinishDecision =
  | { readonly kind: "accept" }
  /**
   * The run goes on: the history gets a `finish_rejected` message with `reasons` (stable
   * codes) and `message` (what is missing, for the model). Too many rejections end it.
   */
  | {
      readonly kind: "reject";
      readonly reasons: readonly string[];
      readonly message: string;
    };

/**
 * The extensions of a run, by deciding point, with the points nobody implements left empty
 * (trace listeners are joined into one sink instead, see `traceListeners`).
 */
export interface ExtensionChain {
  readonly beforeModelCall: readonly RunExtension[];
  readonly afterReply: readonly RunExtension[];
  readonly beforeToolCall: readonly RunExtension[];
  readonly afterToolCall: readonly RunExtension[];
  readonly onFinish: readonly RunExtension[];
}

/** Groups extensions by point, keeping their order, so the loop skips an empty point at once. */
export function chainExtensions(extensions: readonly RunExtension[]): ExtensionChain {
  const at = (point: keyof Omit<RunExtension, "name" | "onTrace">) =>
    Object.freeze(extensions.filter((extension) => typeof extension[point] === "function"));
  return Object.freeze({
    beforeModelCall: at("beforeModelCall"),
    afterReply: at("afterReply"),
    beforeToolCall: at("beforeToolCall"),
    afterToolCall: at("afterToolCall"),
    onFinish: at("onFinish"),
  });
}
