import { z } from "zod";
import { errorMessage } from "./errors.ts";
import { formatValueIssues, toValueIssues } from "./issues.ts";
import type { Message } from "./messages.ts";
import { type ReplyReasoning, ReplyReasoningSchema } from "./reasoning.ts";
import type { Task } from "./task.ts";
import type { ToolDescription } from "./tools.ts";

/** Tokens one model call consumed. */
export const TokenUsageSchema = z.strictObject({
  inputTokens: z.int().min(0),
  outputTokens: z.int().min(0),
  /** The part of `inputTokens` served from the provider's prompt cache (priced apart). */
  cachedInputTokens: z.int().min(0).optional(),
  /**
   * The part of `outputTokens` the model spent thinking, where the vendor reports it. It is
   * already inside `outputTokens` (vendors bill it as output), so it is priced with them.
   */
  reasoningTokens: z.int().min(0).optional(),
});

/** Tokens one model call consumed. */
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/**
 * One model call. Deeply immutable: `messages` is a read-only view of the run's
 * history fixed at this step, so a provider can neither change the history nor
 * see later steps through it.
 */
export interface ModelRequest {
  readonly task: Task;
  readonly messages: readonly Message[];
  /** 1-based number of this model call within the run. */
  readonly step: number;
  readonly tools: readonly ToolDescription[];
  /**
   * The system prompt to send before the messages, when the runtime gives one (an extension
   * sets it, so everything after it — a token estimate, the provider — sees the same text).
   */
  readonly system?: string;
}

/**
 * A provider's reply: the model's action (validated by the loop with
 * `parseAction`, because a model may reply anything) and the tokens it used.
 * A reply that holds several actions (real APIs return a text and several tool
 * calls at once) gives them as `actions` instead: the loop records them all, runs
 * the tool calls in order and answers every one before it asks the model again.
 */
export interface ModelResponse {
  readonly action?: unknown;
  readonly actions?: readonly unknown[];
  readonly usage?: TokenUsage;
  /** The model that answered, when the provider names it (a run with a fallback model). */
  readonly model?: string;
  /** The reasoning that came with the reply; kept with it and given back to the provider. */
  readonly reasoning?: ReplyReasoning;
}

/**
 * A model behind one method. `signal` aborts the call; a provider should stop
 * work and reject when it fires (the loop does not wait for it either way).
 */
export interface Provider {
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}

/** The shape a provider must resolve to; the actions are checked separately. */
export const ModelResponseSchema = z
  .object({
    action: z.unknown().optional(),
    actions: z.array(z.unknown()).min(1, "actions 不能为空").optional(),
    usage: TokenUsageSchema.optional(),
    model: z.string().min(1).optional(),
    reasoning: ReplyReasoningSchema.optional(),
  })
  .refine((response) => (response.action === undefined) !== (response.actions === undefined), {
    message: "需要 action 或 actions 之一（且只能有一个）",
  });

/** The outcome of `parseModelResponse`. */
export type ModelResponseParseResult =
  | { readonly ok: true; readonly response: ModelResponse }
  | { readonly ok: false; readonly reason: string };

/** Validates what a provider resolved to (not yet the action inside it). Never throws. */
export function parseModelResponse(value: unknown): ModelResponseParseResult {
  let parsed: ReturnType<typeof ModelResponseSchema.safeParse>;
  try {
    parsed = ModelResponseSchema.safeParse(value);
  } catch (error) {
    // A Proxy or a getter that throws: a broken reply, not a crash of the run.
    return { ok: false, reason: `Provider 返回的值无法读取：${errorMessage(error)}` };
  }
  if (parsed.success) return { ok: true, response: parsed.data };
  const details = formatValueIssues(toValueIssues(parsed.error.issues), "；");
  return { ok: false, reason: `Provider 返回的结构无效：${details}` };
}

/** A request whose parts are immutable; frozen on construction. */
class ImmutableModelRequest implements ModelRequest {
  readonly task: Task;
  readonly messages: readonly Message[];
  readonly step: number;
  readonly tools: readonly ToolDescription[];
  declare readonly system?: string;

  constructor(parts: ModelRequest) {
    this.task = parts.task;
    this.messages = parts.messages;
    this.step = parts.step;
    this.tools = parts.tools;
    // Only when given: a request without one has no `system` key at all.
    if (parts.system !== undefined) this.system = parts.system;
    Object.freeze(this);
  }
}

/**
 * Builds a frozen request from parts that are already immutable (a frozen task,
 * a history view, frozen tool descriptions) and marks it as such, so a recorder
 * may keep it by reference instead of copying it.
 */
export function createModelRequest(parts: ModelRequest): ModelRequest {
  return new ImmutableModelRequest(parts);
}

/** True if `request` was built by `createModelRequest`: a snapshot of it is itself. */
export function isImmutableRequest(request: ModelRequest): boolean {
  return request instanceof ImmutableModelRequest;
}
