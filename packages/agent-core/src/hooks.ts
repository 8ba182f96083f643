import type {
  FinishProposal,
  RunExtension,
  ToolCallDecision,
  ToolCallInfo,
  ToolResultDecision,
} from "./extension.ts";
import type { ModelRequest } from "./provider.ts";
import { toolError } from "./tool-error.ts";
import type { ToolInput } from "./tools.ts";

/** The error code a model gets for a call a hook vetoed, and the reason of a vetoed finish. */
export const HOOK_DENIED = "hook_denied";

/** Lets the step go on unchanged (the same as answering `undefined`). */
export interface HookAllow {
  readonly kind: "allow";
}

/** Refuses the step; `message` says why (the model is shown it). */
export interface HookVeto {
  readonly kind: "veto";
  readonly message: string;
}

type Awaitable<T> = T | Promise<T>;

/**
 * Typed hooks (lesson 36): a simpler face of `RunExtension` for code that only allows,
 * vetoes or rewrites the step it is shown. Each is optional and may be async; it is asked
 * under the run's deadline and cancel signal, like any extension, and a hook that throws
 * fails closed as an extension does (see `RunExtension`).
 */
export interface Hooks {
  /** Names the hooks in reasons and errors. */
  readonly name: string;
  /** Before each model call. A veto ends the run `blocked` (`permission_denied`). */
  beforeModelCall?(
    request: ModelRequest,
    signal: AbortSignal,
  ): Awaitable<
    HookAllow | HookVeto | { readonly kind: "rewrite"; readonly request: ModelRequest } | undefined
  >;
  /**
   * Before each tool call whose input is valid. A veto answers the call with
   * `{ ok: false, error: { code: "hook_denied", message } }` (it does not run, the run
   * goes on); a rewrite's input is validated again and still goes through the approval
   * gate and the tool's own policy.
   */
  preToolUse?(
    call: ToolCallInfo,
    signal: AbortSignal,
  ): Awaitable<
    HookAllow | HookVeto | { readonly kind: "rewrite"; readonly input: ToolInput } | undefined
  >;
  /**
   * After a tool call that ran and succeeded (not after an expected error, nor after a
   * call another extension answered without running it, such as a resumed one). A veto
   * replaces the value by a `hook_denied` error; a rewrite by `result` (redacted by the
   * loop afterwards, like every value).
   */
  postToolUse?(
    call: ToolCallInfo,
    value: unknown,
    signal: AbortSignal,
  ): Awaitable<
    HookAllow | HookVeto | { readonly kind: "rewrite"; readonly result: unknown } | undefined
  >;
  /**
   * When the model proposes to finish. A veto rejects the finish through the finish-rejection
   * path (reason `hook_denied`, the message shown to the model; counted towards
   * `maxFinishRejections`).
   */
  stop?(proposal: FinishProposal, signal: AbortSignal): Awaitable<HookAllow | HookVeto | undefined>;
}

/**
 * The extension that asks `hooks` at their points. Only the points `hooks` has are
 * implemented (a run without a `stop` hook pays nothing at a finish). Its place in
 * `RunOptions.extensions` decides what it sees and who sees its rewrites: put it before
 * the extensions that must see the rewritten call (a state log), and remember the tool's
 * own permission check always comes last.
 */
export function createHookExtension(hooks: Hooks): RunExtension {
  const { name } = hooks;
  // Calls this extension let through: postToolUse is asked only about those that then ran.
  const passed = new Set<string>();
  const extension: {
    -readonly [K in keyof RunExtension]: RunExtension[K];
  } = { name };
  const { beforeModelCall, preToolUse, postToolUse, stop } = hooks;
  if (beforeModelCall !== undefined) {
    extension.beforeModelCall = async (request, signal) => {
      const verdict = check(await beforeModelCall.call(hooks, request, signal), name, ["rewrite"]);
      if (verdict === undefined) return undefined;
      if (verdict.kind === "veto") {
        const reason = `hook ${name} 拒绝了模型调用：${verdict.message}`;
        return { kind: "stop", code: "permission_denied", reason };
      }
      return { kind: "rewrite", request: verdict.request as ModelRequest };
    };
  }
  if (preToolUse !== undefined || postToolUse !== undefined) {
    extension.beforeToolCall = async (call, signal): Promise<ToolCallDecision | undefined> => {
      const verdict =
        preToolUse === undefined
          ? undefined
          : check(await preToolUse.call(hooks, call, signal), name, ["rewrite"]);
      if (verdict?.kind === "veto") {
        return { kind: "veto", error: { code: HOOK_DENIED, message: verdict.message } };
      }
      passed.add(call.callId);
      if (verdict === undefined) return undefined;
      return { kind: "rewrite", input: verdict.input as ToolInput };
    };
  }
  if (postToolUse !== undefined) {
    extension.afterToolCall = async (
      call,
      result,
      signal,
    ): Promise<ToolResultDecision | undefined> => {
      if (!passed.delete(call.callId) || !result.ok) return undefined;
      const verdict = check(await postToolUse.call(hooks, call, result.value, signal), name, [
        "rewrite",
      ]);
      if (verdict === undefined) return undefined;
      if (verdict.kind === "veto") {
        return { kind: "replace", value: toolError(HOOK_DENIED, verdict.message) };
      }
      if (!("result" in verdict)) throw new TypeError(`hook ${name} 的 rewrite 缺少 result`);
      return { kind: "replace", value: verdict.result };
    };
  }
  if (stop !== undefined) {
    extension.onFinish = async (proposal, signal) => {
      const verdict = check(await stop.call(hooks, proposal, signal), name, []);
      if (verdict === undefined) return undefined;
      return { kind: "reject", reasons: [HOOK_DENIED], message: String(verdict.message) };
    };
  }
  return Object.freeze(extension);
}

/**
 * A hook's answer: undefined for "allow", else a veto or one of `rewrites`. Anything else
 * is a bug in the hook, thrown: the loop fails closed on it (see `RunExtension`).
 */
// biome-ignore lint/suspicious/noExplicitAny: a verdict is read field by field below.
type Verdict = HookVeto | { readonly kind: "rewrite"; readonly [field: string]: any };

function check(verdict: unknown, name: string, rewrites: readonly string[]): Verdict | undefined {
  if (verdict === undefined || verdict === null) return undefined;
  const kind = (verdict as { kind?: unknown }).kind;
  if (kind === "allow") return undefined;
  if (kind === "veto") {
    const { message } = verdict as { message?: unknown };
    if (typeof message !== "string") throw new TypeError(`hook ${name} 的 veto 缺少 message`);
    return verdict as HookVeto;
  }
  if (typeof kind === "string" && rewrites.includes(kind)) return verdict as Verdict;
  throw new TypeError(`hook ${name} 返回了无效的决定`);
}
