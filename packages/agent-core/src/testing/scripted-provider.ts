import { z } from "zod";
import { AbortError, ScriptExhaustedError, ScriptNotFinishedError } from "../errors.ts";
import { isHistoryView } from "../messages.ts";
import {
  isImmutableRequest,
  type ModelRequest,
  type ModelResponse,
  type Provider,
  type TokenUsage,
  TokenUsageSchema,
} from "../provider.ts";
import { type ReplyReasoning, ReplyReasoningSchema } from "../reasoning.ts";

/**
 * One scripted turn as data (a script file): exactly one of `action` (any value:
 * a valid or deliberately invalid reply), `actions` (a reply of several actions)
 * or `error` (the provider rejects with `new Error(error)`), optional `usage`, and `delayMs` to wait before replying
 * (aborted by the signal), and `agent`: the goal of the subagent whose turn it is (absent:
 * the parent's; the CLI routes the turns, the provider ignores the tag). One object schema, not a union, so a problem is
 * reported at its field (`[1].delayMs`), not as "no union member matched".
 */
export const ScriptedTurnSchema = z
  .strictObject({
    action: z.unknown().optional(),
    actions: z.array(z.unknown()).optional(),
    error: z.string().optional(),
    usage: TokenUsageSchema.optional(),
    /** What the model thought before this reply (a reasoning model's, see `ReplyReasoning`). */
    reasoning: ReplyReasoningSchema.optional(),
    delayMs: z.int().min(0).optional(),
    agent: z.string().min(1).optional(),
  })
  .refine(
    (turn) =>
      [turn.action, turn.actions, turn.error].filter((part) => part !== undefined).length === 1,
    { message: "每一轮需要 action、actions 或 error 之一（且只能有一个）" },
  );

/** A script: the replies in order. Validate files with this schema. */
export const ScriptSchema = z.array(ScriptedTurnSchema).transform((turns) =>
  turns.map((turn): ScriptedTurn => {
    const delay = {
      ...(turn.delayMs === undefined ? {} : { delayMs: turn.delayMs }),
      ...(turn.agent === undefined ? {} : { agent: turn.agent }),
    };
    if (turn.error !== undefined) return { error: turn.error, ...delay };
    const usage = {
      ...(turn.usage === undefined ? {} : { usage: turn.usage }),
      ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
    };
    if (turn.actions !== undefined) return { actions: turn.actions, ...usage, ...delay };
    return { action: turn.action, ...usage, ...delay };
  }),
);

/**
 * One scripted reply, as data (`error` is a message) or with any value to reject with.
 * `agent` tags the turn as a subagent's (its goal); the provider itself ignores it.
 */
export type ScriptedTurn =
  | {
      readonly action: unknown;
      readonly usage?: TokenUsage;
      readonly reasoning?: ReplyReasoning;
      readonly delayMs?: number;
      readonly agent?: string;
    }
  | {
      readonly actions: readonly unknown[];
      readonly usage?: TokenUsage;
      readonly reasoning?: ReplyReasoning;
      readonly delayMs?: number;
      readonly agent?: string;
    }
  | { readonly error: unknown; readonly delayMs?: number; readonly agent?: string };

/** A provider that replays a script and records what it was asked. */
export interface ScriptedProvider extends Provider {
  /** Every request received, as deep immutable snapshots, in order. */
  readonly requests: readonly ModelRequest[];
  /** Turns not yet used. */
  readonly remaining: number;
  /** Throws `ScriptNotFinishedError` if some turns were never requested. */
  assertAllUsed(): void;
}

/**
 * A strict fake model for tests and offline runs. Unlike a lenient mock it never
 * returns "nothing": a call past the end of the script rejects with
 * `ScriptExhaustedError`. It honours the signal (an aborted call rejects with an
 * `AbortError`) and records a deep snapshot of every request. Requests built by
 * the loop are already deeply immutable, so their snapshot is the request itself
 * (O(1), a long run stays linear); any other request is deep-copied and frozen.
 */
export function createScriptedProvider(script: readonly ScriptedTurn[]): ScriptedProvider {
  const turns = [...script];
  const requests: ModelRequest[] = [];
  let next = 0;

  return {
    get requests() {
      return requests as readonly ModelRequest[];
    },
    get remaining() {
      return Math.max(0, turns.length - next);
    },
    assertAllUsed() {
      if (next < turns.length) {
        throw new ScriptNotFinishedError(
          `脚本共有 ${turns.length} 轮，只用了 ${next} 轮：还剩 ${turns.length - next} 轮没有被请求`,
        );
      }
    },
    async complete(request, signal) {
      if (signal.aborted)
        throw new AbortError("调用前 signal 已中止：脚本化 Provider 不消耗任何一轮");
      requests.push(snapshotRequest(request));
      const turn = turns[next];
      if (turn === undefined) {
        throw new ScriptExhaustedError(
          `脚本化 Provider 只有 ${turns.length} 轮，却收到第 ${requests.length} 次调用（step ${request.step}）：脚本用完了`,
        );
      }
      next += 1;
      if (turn.delayMs !== undefined && turn.delayMs > 0) await delay(turn.delayMs, signal);
      if ("error" in turn) {
        throw turn.error instanceof Error ? turn.error : new Error(String(turn.error));
      }
      const usage = {
        ...(turn.usage === undefined ? {} : { usage: turn.usage }),
        ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
      };
      const response: ModelResponse =
        "actions" in turn ? { actions: turn.actions, ...usage } : { action: turn.action, ...usage };
      return response;
    },
  };
}

/** A deep, immutable snapshot of a request; O(1) for requests the loop built. */
export function snapshotRequest(request: ModelRequest): ModelRequest {
  if (isImmutableRequest(request)) return request;
  return freezeCopy(request) as ModelRequest;
}

function freezeCopy(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isHistoryView(value)) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(freezeCopy));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: freezeCopy((value as Record<string, unknown>)[key]),
      enumerable: true,
    });
  }
  return Object.freeze(out);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError("脚本化 Provider 的延迟被 signal 中止"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
