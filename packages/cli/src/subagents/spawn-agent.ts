import {
  createRunAccount,
  type Limits,
  type RunAccount,
  type RunExtension,
  type Tool,
  type ToolInput,
} from "@coding-agent/agent-core";
import type { PathAllowance } from "@coding-agent/tools";
import { carveShare, reserve } from "./budget-share.ts";
import { type ChildBatch, type Launch, startChildBatch } from "./child-batch.ts";
import type { ChildBudget, ChildOutcome, ChildRunner, ChildSpec } from "./child-runner.ts";
import type { runAll as defaultRunAll } from "./scheduler.ts";
import {
  notRun,
  resultOf,
  SPAWN_AGENT,
  type SpawnResult,
  spawnAgentTool,
  spawnInputSchema,
  specOf,
} from "./spawn-tool.ts";
import {
  addChildSpend,
  budgetSpendOf,
  CHARGED_AS,
  NOTHING_SPENT,
  type Spend,
  type SubagentsSpent,
} from "./spend.ts";

export interface SubagentsOptions {
  /** `--subagents`: children running at once. */
  readonly limit: number;
  /** The parent's limits as `runAgent` gets them, and its cost budget. */
  readonly limits: Limits;
  readonly maxCostUsd?: number;
  /**
   * The parent's run account (`createRunAccount`), given to the parent's `runAgent` too: each
   * child's spend is charged to it as the child ends, so the parent's budgets count it, and a
   * batch's share is carved from its own and charged spend. Default: a new one
   * (`Subagents.account`), which the parent's `runAgent` must be given to see the children.
   */
  readonly account?: RunAccount;
  /** The parent's `--allow-path` check: a child's globs must lie inside it. */
  readonly parentAllows: PathAllowance;
  readonly runChild: ChildRunner;
  /** The parent's cancel (the user's Ctrl-C). */
  readonly signal: AbortSignal;
  readonly clock?: () => number;
  /** One stderr line per child start and end. */
  readonly notify?: (line: string) => void;
  /** Runs a batch of children (lesson 39's exercise plugs in here); default `runAll`. */
  readonly runAll?: typeof defaultRunAll;
  /**
   * What the children of a resumed run spent before it stopped (its log's
   * `subagent_finished` lines): charged to the account at once, and counted in `spent()`.
   */
  readonly spentBefore?: SubagentsSpent;
  /** Children numbered before this run (a resume's): the next child is `firstIndex + 1`. */
  readonly firstIndex?: number;
  /**
   * Called when a child has ended, before its `spawn_agent` call gets the result (the
   * parent's state log writes `subagent_finished` here, so it comes before the call's
   * `tool_result`).
   */
  readonly onChildEnd?: (ended: {
    readonly index: number;
    readonly callId: string;
    readonly outcome: ChildOutcome;
  }) => void;
}

/** `spawn_agent` and the extension that schedules and cancels the children. */
export interface Subagents {
  readonly tools: Readonly<Record<string, Tool>>;
  /** The account the children's spend is charged to (`options.account`, or a new one). */
  readonly account: RunAccount;
  /** Goes last among the run's extensions: a call it sees is one nothing else answered. */
  readonly extension: RunExtension;
  /** Cancels every child still running and waits until each one is gone with its copy. */
  close(): Promise<void>;
  /** What the children spent so far (with `spentBefore`): every child that ended, in end order. */
  spent(): SubagentsSpent;
}

/** What the children of one parent share: the account, what is promised, the reply's batches. */
interface SubagentsState {
  readonly options: SubagentsOptions;
  readonly clock: () => number;
  readonly account: RunAccount;
  /** What the running children were given and have not given back yet. */
  readonly reserved: Spend;
  spent: SubagentsSpent;
  startedAt: number;
  /** Children numbered so far (a resume's included). */
  started: number;
  /** The reply's spawn_agent calls, in order (set after each reply). */
  pending: readonly { readonly callId: string; readonly input: unknown }[];
  /** Each call the extensions let through, by the input object its `execute` gets. */
  readonly callIds: Map<ToolInput, string>;
  /** The reply's batches (more than one only when a hook made an invalid input valid). */
  batches: ChildBatch[];
  /** Every child still running, to cancel and wait for when the parent closes. */
  readonly running: Set<Promise<unknown>>;
  /** Fires when the parent closes: every child still running stops. */
  readonly closing: AbortController;
}

/**
 * `spawn_agent` is a concurrent tool: the loop starts the `spawn_agent` calls of a reply
 * together, each after its own extension points said yes, and records their results in call
 * order. The first call of a reply that starts opens a batch of it and every later
 * `spawn_agent` of the reply with a valid input, handed to `runAll` (at most `limit` children at
 * once, in call order, the parent's cancel reaching each); each call answers with its own child.
 * A call that does not start (a hook vetoed it, the run stopped) starts no child.
 *
 * Budget: a batch of k children shares what the parent has left, evenly — steps (one kept
 * for the parent to read the results), tool calls (one kept, and the batch's own calls),
 * tokens and cost; each child gets the parent's whole remaining time (they run side by
 * side). A child's spend is charged to the parent's run account as it ends: the parent's
 * guard counts it with the parent's own, and once both reach a limit the parent stops with
 * that limit's code.
 */
export function createSubagents(options: SubagentsOptions): Subagents {
  const clock = options.clock ?? (() => Date.now());
  const spent = options.spentBefore ?? NOTHING_SPENT;
  const account = options.account ?? createRunAccount({ chargedAs: CHARGED_AS });
  // A resumed run's children spent this before it stopped: charged before its first check.
  if (options.spentBefore !== undefined) account.charge(budgetSpendOf(options.spentBefore));
  const state: SubagentsState = {
    options,
    clock,
    account,
    reserved: { steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 },
    spent,
    startedAt: clock(),
    started: options.firstIndex ?? 0,
    pending: [],
    callIds: new Map(),
    batches: [],
    running: new Set(),
    closing: new AbortController(),
  };
  const execute: Tool["execute"] = (input, signal) => startCall(state, input, signal);
  return {
    tools: { [SPAWN_AGENT]: spawnAgentTool(options.parentAllows, execute) },
    account,
    extension: subagentsExtension(state),
    async close() {
      for (const batch of state.batches) batch.skipAll();
      state.closing.abort(new Error("父运行已结束"));
      // A batch's runAll may still start a child now (it ends at once): wait for those too.
      await Promise.all(state.batches.map((batch) => batch.done));
      await Promise.all(state.running);
    },
    spent: () => state.spent,
  };
}

/**
 * Notes the reply's spawn_agent calls, which call each input belongs to, and when the run
 * started; closes the reply's batches before the next model call. The budgets are the run's
 * guard's, counting the account.
 */
function subagentsExtension(state: SubagentsState): RunExtension {
  return {
    name: "subagents",
    beforeModelCall() {
      // The reply is over: a call of it that has not started never will.
      for (const batch of state.batches) batch.skipAll();
      state.batches = [];
      state.callIds.clear();
      return undefined;
    },
    afterReply(reply) {
      state.pending = reply.actions.flatMap((action) =>
        action.type === "tool_call" && action.tool === SPAWN_AGENT
          ? [{ callId: (action as { callId?: string }).callId ?? "", input: action.input }]
          : [],
      );
      return undefined;
    },
    beforeToolCall(call) {
      // Last among the extensions: this input is the one the tool's `execute` gets.
      if (call.tool === SPAWN_AGENT) state.callIds.set(call.input, call.callId);
      return undefined;
    },
    onTrace(event) {
      if (event.type === "run_started") state.startedAt = state.clock() - event.atMs;
    },
  };
}

/** A `spawn_agent` call the loop started: its child runs in the reply's batch. */
function startCall(state: SubagentsState, input: ToolInput, signal: AbortSignal) {
  // Not seen by the extensions (a run without them): a batch of its own.
  const callId = state.callIds.get(input) ?? `direct_${state.started + 1}`;
  const order = state.pending.findIndex((entry) => entry.callId === callId);
  if (order >= 0) for (const batch of state.batches) batch.skipBefore(order);
  const batch = state.batches.find((one) => one.awaits(callId)) ?? openBatch(state, callId, order);
  const child = { callId, spec: specOf(input), index: ++state.started };
  const parentCancel = state.options.signal;
  const cancelled = () => parentCancel.aborted || signal.aborted || state.closing.signal.aborted;
  const launch: Launch = {
    run: (share, slot) => {
      if (state.closing.signal.aborted) return Promise.reject(state.closing.signal.reason);
      const own = timeLimitsOf(signal, parentCancel);
      const stops = AbortSignal.any([slot, own.signal, state.closing.signal]);
      return runChild(state, child, share, stops).finally(own.dispose);
    },
    failed: (error) => notRun(cancelled(), error),
  };
  return batch.start(callId, launch);
}

/** A batch of this call and every later spawn_agent of the reply (valid input) not in one yet. */
function openBatch(state: SubagentsState, callId: string, order: number): ChildBatch {
  const { options } = state;
  const schema = spawnInputSchema(options.parentAllows);
  const later = order < 0 ? [] : state.pending.slice(order + 1);
  const calls = [{ callId, order }];
  later.forEach((entry, at) => {
    const waiting = state.batches.some((batch) => batch.awaits(entry.callId));
    if (!waiting && schema.safeParse(entry.input).success) {
      calls.push({ callId: entry.callId, order: order + 1 + at });
    }
  });
  const share = carveShare(
    {
      limits: options.limits,
      maxCostUsd: options.maxCostUsd,
      own: state.account.own(),
      charged: state.account.charged(),
      reserved: state.reserved,
      elapsedMs: state.clock() - state.startedAt,
    },
    calls.length,
  );
  const batch = startChildBatch({
    calls,
    share,
    limit: options.limit,
    signal: options.signal,
    ...(options.runAll === undefined ? {} : { runAll: options.runAll }),
  });
  state.batches.push(batch);
  return batch;
}

/** Runs one child; its spend is charged to the parent's account once it ends. */
async function runChild(
  state: SubagentsState,
  child: { readonly callId: string; readonly spec: ChildSpec; readonly index: number },
  share: ChildBudget,
  signal: AbortSignal,
): Promise<SpawnResult> {
  const { options } = state;
  reserve(state.reserved, share, 1);
  options.notify?.(`coding-agent：子 Agent #${child.index} 开始：${child.spec.goal}\n`);
  const running = Promise.resolve().then(() =>
    options.runChild(child.spec, share, signal, child.index),
  );
  const gone: Promise<unknown> = running.then(
    () => state.running.delete(gone),
    () => state.running.delete(gone),
  );
  state.running.add(gone);
  try {
    const outcome: ChildOutcome = await running;
    // Before its call's result: the parent's next check, a tool call of the same reply
    // included, counts it.
    state.account.charge(budgetSpendOf(outcome));
    state.spent = addChildSpend(state.spent, outcome);
    options.onChildEnd?.({ index: child.index, callId: child.callId, outcome });
    options.notify?.(
      `coding-agent：子 Agent #${child.index} 结束：${outcome.status}（${outcome.code}），改动 ${outcome.files.length} 个文件\n`,
    );
    return resultOf(outcome);
  } catch (error) {
    options.notify?.(`coding-agent：子 Agent #${child.index} 结束：failed\n`);
    throw error;
  } finally {
    reserve(state.reserved, share, -1);
  }
}

/**
 * The call's own time limits (the tool timeout, the run's deadline) as a signal for its child,
 * without the parent's cancel: that reaches every child of a batch through `runAll`.
 */
function timeLimitsOf(call: AbortSignal, parentCancel: AbortSignal) {
  const own = new AbortController();
  const onAbort = () => {
    if (!parentCancel.aborted) own.abort(call.reason);
  };
  if (call.aborted) onAbort();
  else call.addEventListener("abort", onAbort, { once: true });
  return { signal: own.signal, dispose: () => call.removeEventListener("abort", onAbort) };
}
