import {
  type Authorization,
  type BlockedOutcome,
  blockRun,
  type ToolErrorResult,
  toolError,
} from "@coding-agent/agent-core";
import {
  type ApprovalMode,
  type ApprovalOutcome,
  type ApprovalRequest,
  type Approver,
  denyAll,
  requestApproval,
} from "./approvals.ts";

/** A call that needs permission, as the gate asks about it and names it when refused. */
export interface GatedCall {
  /** What the approver is shown. `program` is what "allow for the run" covers. */
  readonly request: ApprovalRequest;
  /** What a refusal leaves undone, naming the call: `["touch","x"] 没有执行`, `没有写入任何文件`. */
  readonly undone: string;
}

/**
 * What becomes of an answer: the run ends blocked (the call never runs), or the call may
 * run, this once or, with every later call of the same `request.program`, for the run.
 */
export type ApprovalVerdict = BlockedOutcome | "allow_once" | "allow_run";

/** Turns the outcome of asking into a verdict (lesson 14 passes the learner's). */
export type DecideApproval = (outcome: ApprovalOutcome, call: GatedCall) => ApprovalVerdict;

/**
 * The default `DecideApproval`: a refusal (no, late, a throwing approver, an unknown
 * answer) blocks the run with a reason naming why permission was needed, why it was
 * not given and the call; an allowance is remembered for the scope it was given.
 */
export const decideApproval: DecideApproval = (outcome, call) => {
  if (!outcome.allowed)
    return blockRun(`${call.request.reason}；${outcome.reason}：${call.undone}`);
  return outcome.forRun ? "allow_run" : "allow_once";
};

/** `--approval` for one run's tools, as the user gave it. */
export interface ApprovalOptions {
  /** `ask` consults `approver`; `deny` blocks without asking; `auto` does not ask (see `ApprovalGate`). */
  readonly approval: ApprovalMode;
  /** Consulted under `ask`; none refuses, as `ask` without a terminal does. */
  readonly approver?: Approver;
  /** How long an answer may take before it counts as a refusal. Default 60 s. */
  readonly approvalTimeoutMs?: number;
  /** What becomes of an answer; `decideApproval` by default. */
  readonly decideApproval?: DecideApproval;
}

/**
 * The permission check of one tool for one run; it remembers what was allowed. A call
 * the tool says needs nothing (`call` undefined) always passes.
 */
export interface ApprovalGate {
  /**
   * The check before the call starts (agent-core's `Tool.authorize`): `blockRun(...)` under
   * `deny` or a refused `ask`, else `undefined`. Asks only what is not allowed yet.
   */
  authorize(
    input: object,
    call: GatedCall | undefined,
    signal?: AbortSignal,
  ): Promise<Authorization>;
  /**
   * The check right before the call acts, inside `execute`. A call not authorized before
   * (`execute` called directly, or what it would do changed since) is checked here the
   * same way. `undefined`: act now, and an "allow once" is used up. Otherwise the refusal
   * to return: `blockRun(...)`, or, under `auto` when the tool refuses what it would ask
   * about, the `not_allowed` error.
   */
  admit(
    input: object,
    call: GatedCall | undefined,
    signal?: AbortSignal,
  ): Promise<BlockedOutcome | ToolErrorResult | undefined>;
}

/**
 * Creates a tool's gate. `auto` says what `--approval auto` does with a call that needs
 * permission, for this tool: `allow` (writes `--allow-path` already permits) or
 * `not_allowed` (a program outside `--allow-command`: the call answers `not_allowed`
 * and the run goes on).
 */
export function createApprovalGate(
  options: ApprovalOptions & { readonly auto: "allow" | "not_allowed" },
): ApprovalGate {
  /** `request.program`s allowed for the rest of the run. */
  const allowedForRun = new Set<string>();
  /**
   * Inputs allowed once, with the request that was allowed: it holds only while the call
   * would still do exactly what the approver was shown.
   */
  const allowedOnce = new WeakMap<object, string>();
  const decide = options.decideApproval ?? decideApproval;

  const covered = (input: object, call: GatedCall) =>
    allowedForRun.has(call.request.program) ||
    allowedOnce.get(input) === JSON.stringify(call.request);

  async function authorize(
    input: object,
    call: GatedCall | undefined,
    signal?: AbortSignal,
  ): Promise<Authorization> {
    if (call === undefined || covered(input, call)) return undefined;
    switch (options.approval) {
      case "auto":
        // Not asked and not blocked: `admit` allows it or answers not_allowed.
        return undefined;
      case "deny":
        return blockRun(`${call.request.reason}；--approval deny：${call.undone}`);
      case "ask": {
        const outcome = await requestApproval({
          approver: options.approver ?? denyAll,
          request: call.request,
          timeoutMs: options.approvalTimeoutMs ?? 60_000,
          ...(signal === undefined ? {} : { signal }),
        });
        const verdict = decide(outcome, call);
        if (verdict === "allow_run") allowedForRun.add(call.request.program);
        else if (verdict === "allow_once") allowedOnce.set(input, JSON.stringify(call.request));
        // Anything else is a refusal: `admit` never lets an unremembered call act.
        else return verdict;
        return undefined;
      }
      default: {
        const unreachable: never = options.approval;
        throw new TypeError(`unhandled approval mode ${String(unreachable)}`);
      }
    }
  }

  async function admit(
    input: object,
    call: GatedCall | undefined,
    signal?: AbortSignal,
  ): Promise<BlockedOutcome | ToolErrorResult | undefined> {
    if (call === undefined) return undefined;
    const blocked = await authorize(input, call, signal);
    if (blocked !== undefined) return blocked;
    const allowed =
      covered(input, call) || (options.approval === "auto" && options.auto === "allow");
    // "Allow once" is used up by this call.
    allowedOnce.delete(input);
    return allowed ? undefined : toolError("not_allowed", call.request.reason);
  }

  return { authorize, admit };
}
