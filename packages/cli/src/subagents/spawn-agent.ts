import {
  type ExtensionStop,
  formatUsd,
  type Limits,
  type RunExtension,
  type RunResult,
  type RunStatus,
  type TokenUsage,
  type Tool,
  type ToolInput,
  type TraceEvent,
} from "@coding-agent/agent-core";
import { allowPathProblem, type PathAllowance } from "@coding-agent/tools";
import { z } from "zod";
import { runAll as defaultRunAll } from "./scheduler.ts";

/** What a run or its children spent, as the budgets count it. */
export interface Spend {
  steps: number;
  toolCalls: number;
  tokens: number;
  costUsd: number;
}

/** Counts the parent's own spending from its trace events (its valid replies, its tools). */
export function countParent(parent: Spend, event: TraceEvent): void {
  if (event.type === "model_completed" && event.ok) {
    parent.steps += 1;
    parent.tokens += (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0);
    parent.costUsd += event.costUsd ?? 0;
  }
  if (event.type === "tool_started") parent.toolCalls += 1;
}

/**
 * Before a parent's model call: the stop once its own spending and its children's reach a
 * limit (steps, tokens, cost), naming the children's share; none while no child spent.
 */
export function childrenOverBudget(
  limits: Limits,
  maxCostUsd: number | undefined,
  parent: Readonly<Spend>,
  children: Readonly<Spend>,
): ExtensionStop | undefined {
  if (children.steps === 0 && children.tokens === 0 && children.costUsd === 0) return undefined;
  const steps = parent.steps + children.steps;
  if (steps >= limits.maxSteps) {
    return stop(
      "max_steps",
      `已用 ${steps} 步（其中子 Agent ${children.steps} 步），达到预算 ${limits.maxSteps}`,
    );
  }
  const tokens = parent.tokens + children.tokens;
  if (limits.maxTokens !== undefined && tokens >= limits.maxTokens) {
    return stop(
      "max_tokens",
      `已用 ${tokens} 个 token（其中子 Agent ${children.tokens} 个），达到预算 ${limits.maxTokens}`,
    );
  }
  const cost = parent.costUsd + children.costUsd;
  if (maxCostUsd !== undefined && cost >= maxCostUsd) {
    // Dollars as the run's own cost stop prints them (checkCost): a sum like 0.1 + 0.2 is
    // $0.3000, not 0.30000000000000004.
    return stop(
      "max_cost",
      `已花费 ${formatUsd(cost)}（其中子 Agent ${formatUsd(children.costUsd)}），达到成本预算 ${formatUsd(maxCostUsd)}`,
    );
  }
  return undefined;
}

/** The tool's name, as docs/contracts.md §7 spells it. */
export const SPAWN_AGENT = "spawn_agent";

/** What a child is asked to do: its goal, and the globs it may edit (within the parent's). */
export interface ChildSpec {
  readonly goal: string;
  readonly allowPaths: readonly string[];
}

/** The part of the parent's budget a child gets (docs/contracts.md §7: carved from the parent's). */
export interface ChildBudget {
  readonly limits: Limits;
  readonly maxCostUsd?: number;
}

/** How a child ended, as its runner reports it. */
export interface ChildOutcome {
  readonly status: RunStatus;
  readonly code: string;
  readonly summary: string;
  readonly patch: string;
  readonly files: readonly string[];
  readonly excluded: readonly string[];
  readonly steps: number;
  readonly toolCalls: number;
  readonly usage: TokenUsage;
  readonly costUsd: number | null;
}

/**
 * What a run's children spent, together: the `subagents` field of a parent's `--json`
 * result (docs/contracts.md §7 "Cost": the parent's `usage` and `costUsd` include this part).
 */
export interface SubagentsSpent {
  /** Children that ran and ended (completed, failed, stopped by a budget, or cancelled). */
  readonly runs: number;
  readonly steps: number;
  readonly toolCalls: number;
  readonly usage: TokenUsage;
  /** USD; null once one child's cost is unknown (its model has no price). */
  readonly costUsd: number | null;
}

/** No child has run. */
export const NOTHING_SPENT: SubagentsSpent = Object.freeze({
  runs: 0,
  steps: 0,
  toolCalls: 0,
  usage: Object.freeze({ inputTokens: 0, outputTokens: 0 }),
  costUsd: 0,
});

/** `spent` with one more child's outcome. */
export function addChildSpend(
  spent: SubagentsSpent,
  outcome: Pick<ChildOutcome, "steps" | "toolCalls" | "usage" | "costUsd">,
): SubagentsSpent {
  return {
    runs: spent.runs + 1,
    steps: spent.steps + outcome.steps,
    toolCalls: spent.toolCalls + outcome.toolCalls,
    usage: {
      inputTokens: spent.usage.inputTokens + outcome.usage.inputTokens,
      outputTokens: spent.usage.outputTokens + outcome.usage.outputTokens,
    },
    costUsd:
      spent.costUsd === null || outcome.costUsd === null ? null : spent.costUsd + outcome.costUsd,
  };
}

/**
 * What children spent as the budgets count it: tokens in and out as one figure, an unknown
 * cost as 0 (as a child's own is counted when it ends). Only a run without a cost budget
 * has one: a cost budget needs every model's price, so there the count is exact.
 */
export function budgetSpendOf(spent: SubagentsSpent): Spend {
  return {
    steps: spent.steps,
    toolCalls: spent.toolCalls,
    tokens: spent.usage.inputTokens + spent.usage.outputTokens,
    costUsd: spent.costUsd ?? 0,
  };
}

/**
 * A parent's result with its children's spending in it: `usage` and `costUsd` are the
 * whole run's (its own model calls and every child's; an unknown cost anywhere makes the
 * total null), and `subagents` names the children's part. `steps` and `toolCalls` stay the
 * parent loop's own (a replay compares them with the log; the children's are in `subagents`).
 */
export function withChildSpend(
  result: RunResult,
  spent: SubagentsSpent,
): RunResult & { readonly subagents: SubagentsSpent } {
  return {
    ...result,
    usage: {
      inputTokens: result.usage.inputTokens + spent.usage.inputTokens,
      outputTokens: result.usage.outputTokens + spent.usage.outputTokens,
    },
    costUsd:
      result.costUsd === null || spent.costUsd === null ? null : result.costUsd + spent.costUsd,
    subagents: spent,
  };
}

/** What the parent's model gets for one `spawn_agent` call. */
export interface SpawnResult {
  readonly status: RunStatus;
  readonly code: string;
  readonly summary: string;
  /** Unified diff of the child's changes against its starting point ("" for none). */
  readonly patch: string;
  /** Files in the patch, relative to the workspace. */
  readonly files: readonly string[];
  /** Files the child changed outside its allowPaths (or the parent's): not in the patch. */
  readonly excluded?: readonly string[];
}

/** Runs one child in its own copy; it must stop, and remove its copy, when `signal` fires. */
export type ChildRunner = (
  spec: ChildSpec,
  budget: ChildBudget,
  signal: AbortSignal,
  index: number,
) => Promise<ChildOutcome>;

export interface SubagentsOptions {
  /** `--subagents`: children running at once. */
  readonly limit: number;
  /** The parent's limits as `runAgent` gets them, and its cost budget. */
  readonly limits: Limits;
  readonly maxCostUsd?: number;
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
   * `subagent_finished` lines): counted against the budgets and in `spent()` as if spent now.
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

/** `spawn_agent` and the extension that schedules, budgets and cancels the children. */
export interface Subagents {
  readonly tools: Readonly<Record<string, Tool>>;
  /** Goes last among the run's extensions: a call it sees is one nothing else answered. */
  readonly extension: RunExtension;
  /** Cancels every child still running and waits until each one is gone with its copy. */
  close(): Promise<void>;
  /** What the children spent so far (with `spentBefore`): every child that ended, in end order. */
  spent(): SubagentsSpent;
}

interface Child {
  readonly callId: string;
  readonly input: ToolInput;
  readonly controller: AbortController;
  readonly result: Promise<SpawnResult>;
  /** Whether the parent's call of it ran (the result is the call's); else it is dropped. */
  claimed: boolean;
}

/** What the children of one parent share: the budgets' counts and the children started. */
interface SubagentsState {
  readonly options: SubagentsOptions;
  readonly clock: () => number;
  readonly parent: Spend;
  readonly children: Spend;
  /** What the running children were given and have not given back yet. */
  readonly reserved: Spend;
  spent: SubagentsSpent;
  startedAt: number;
  /** Children numbered so far (a resume's included). */
  started: number;
  /** The reply's spawn_agent calls, in order (set after each reply). */
  pending: readonly { readonly callId: string; readonly input: unknown }[];
  readonly byCall: Map<string, Child>;
  readonly byInput: Map<ToolInput, Child>;
  readonly all: Set<Child>;
  /** The batch running now: a restarted child waits for it, so at most `limit` run at once. */
  batchDone: Promise<unknown>;
}

/** A child about to start: its call, its spec and how it is answered. */
interface LaunchEntry {
  readonly callId: string;
  readonly input: ToolInput;
  readonly spec: ChildSpec;
  readonly controller: AbortController;
  readonly index: number;
  /**
   * Each call waits for its own child only: a later call's child (one a hook may yet
   * veto) never holds up an earlier call's result.
   */
  readonly done: ReturnType<typeof deferred<SpawnResult>>;
  running: boolean;
}

/**
 * Several `spawn_agent` calls of one reply run at once: the loop runs a reply's calls one
 * after the other, so when the first of them is about to run, it and every later one of
 * the same reply (with a valid input) start as one batch (`runAll`: at most `limit` at
 * once, in call order, the parent's cancel reaching each); each call then waits for its
 * own child, and the results go back in call order. A
 * started child whose call does not run after all (a hook vetoed it, the run stopped) is
 * cancelled before the next model call and its result dropped; one whose input a hook
 * rewrote is cancelled and started again, alone, once its batch is done.
 *
 * Budget: a batch of k children shares what the parent has left, evenly — steps (one kept
 * for the parent to read the results), tool calls (one kept, and the batch's own calls),
 * tokens and cost; each child gets the parent's whole remaining time (they run side by
 * side). A child's spend counts against the parent: once the parent's own plus its
 * children's reach a limit, the parent stops with that limit's code.
 */
export function createSubagents(options: SubagentsOptions): Subagents {
  const clock = options.clock ?? (() => Date.now());
  const spent = options.spentBefore ?? NOTHING_SPENT;
  const state: SubagentsState = {
    options,
    clock,
    parent: { steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 },
    children: budgetSpendOf(spent),
    reserved: { steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 },
    spent,
    startedAt: clock(),
    started: options.firstIndex ?? 0,
    pending: [],
    byCall: new Map(),
    byInput: new Map(),
    all: new Set(),
    batchDone: Promise.resolve(),
  };
  const spawnTool = spawnAgentTool(options.parentAllows, async (input, signal) => {
    let child = state.byInput.get(input);
    if (child === undefined) {
      // Not seen before the call (no extension point ran for it): start it alone now.
      launch(state, [{ callId: `direct_${state.started + 1}`, input }]);
      child = state.byInput.get(input) as Child;
    }
    const claimed = child;
    claimed.claimed = true;
    const onAbort = () => claimed.controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await claimed.result;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  });
  return {
    tools: { [SPAWN_AGENT]: spawnTool },
    extension: subagentsExtension(state),
    async close() {
      for (const child of state.all) child.controller.abort(new Error("父运行已结束"));
      await Promise.all([...state.all].map((child) => child.result));
    },
    spent: () => state.spent,
  };
}

/**
 * Schedules the children: drops those whose calls did not run and checks the budgets before
 * each model call, notes the reply's spawn_agent calls, starts a batch when the first of them
 * is about to run, and counts the parent's own spending.
 */
function subagentsExtension(state: SubagentsState): RunExtension {
  const { options } = state;
  const { limits } = options;
  const schema = spawnInputSchema(options.parentAllows);
  return {
    name: "subagents",
    async beforeModelCall() {
      await dropUnclaimed(state);
      return childrenOverBudget(limits, options.maxCostUsd, state.parent, state.children);
    },
    afterReply(reply) {
      state.pending = reply.actions.flatMap((action) =>
        action.type === "tool_call" && action.tool === SPAWN_AGENT
          ? [{ callId: (action as { callId?: string }).callId ?? "", input: action.input }]
          : [],
      );
      return undefined;
    },
    async beforeToolCall(call) {
      const { parent, children } = state;
      if (limits.maxToolCalls !== undefined && children.toolCalls > 0) {
        const calls = parent.toolCalls + children.toolCalls;
        if (calls >= limits.maxToolCalls) {
          return stop(
            "max_tool_calls",
            `已执行 ${calls} 次工具（其中子 Agent ${children.toolCalls} 次），达到预算 ${limits.maxToolCalls}`,
          );
        }
      }
      if (call.tool !== SPAWN_AGENT) return undefined;
      const known = state.byCall.get(call.callId);
      if (known !== undefined && sameInput(known.input, call.input)) {
        state.byInput.delete(known.input);
        state.byInput.set(call.input, known);
        return undefined;
      }
      if (known !== undefined) {
        // A hook rewrote the input: the child started with the reply's input is not this
        // call's. It is cancelled, and this call's child starts once its batch is done.
        known.controller.abort(new Error("spawn_agent 的输入被改写"));
        await state.batchDone;
        launch(state, [{ callId: call.callId, input: call.input }]);
        return undefined;
      }
      // This call and every later spawn_agent of the reply not started yet start together.
      const at = state.pending.findIndex((entry) => entry.callId === call.callId);
      const later = at < 0 ? [] : state.pending.slice(at + 1);
      const batch = [{ callId: call.callId, input: call.input }];
      for (const entry of later) {
        if (state.byCall.has(entry.callId)) continue;
        const parsed = schema.safeParse(entry.input);
        if (parsed.success) batch.push({ callId: entry.callId, input: parsed.data as ToolInput });
      }
      launch(state, batch);
      return undefined;
    },
    onTrace(event) {
      if (event.type === "run_started") state.startedAt = state.clock() - event.atMs;
      countParent(state.parent, event);
    },
  };
}

/**
 * A batch of `count` children's share of what the parent has left: steps (one kept for the
 * parent), tool calls (one kept, and the batch's own calls), tokens and cost, evenly; the
 * whole remaining time each. A refusal when a share would be empty.
 */
function carve(state: SubagentsState, count: number): ChildBudget | SpawnResult {
  const { options, parent, children, reserved } = state;
  const { limits } = options;
  const steps = Math.floor(
    (limits.maxSteps - parent.steps - children.steps - reserved.steps - 1) / count,
  );
  if (steps < 1) return refused("max_steps", "父运行剩余的步数不够分给子 Agent");
  const childLimits: Limits & Record<string, number | undefined> = { maxSteps: steps };
  if (limits.maxToolCalls !== undefined) {
    const left =
      limits.maxToolCalls - parent.toolCalls - count - children.toolCalls - reserved.toolCalls - 1;
    childLimits.maxToolCalls = Math.max(0, Math.floor(left / count));
  }
  if (limits.maxTokens !== undefined) {
    const left = limits.maxTokens - parent.tokens - children.tokens - reserved.tokens;
    const share = Math.floor(left / count);
    if (share < 1) return refused("max_tokens", "父运行剩余的 token 不够分给子 Agent");
    childLimits.maxTokens = share;
  }
  if (limits.maxDurationMs !== undefined) {
    const left = Math.floor(limits.maxDurationMs - (state.clock() - state.startedAt));
    if (left <= 0) return refused("max_duration", "父运行的时间已经用完");
    childLimits.maxDurationMs = left;
  }
  for (const key of ["modelTimeoutMs", "toolTimeoutMs", "maxToolErrors"] as const) {
    if (limits[key] !== undefined) childLimits[key] = limits[key];
  }
  let maxCostUsd: number | undefined;
  if (options.maxCostUsd !== undefined) {
    maxCostUsd =
      (options.maxCostUsd - parent.costUsd - children.costUsd - reserved.costUsd) / count;
    if (maxCostUsd <= 0) return refused("max_cost", "父运行剩余的成本预算不够分给子 Agent");
  }
  return { limits: childLimits, ...(maxCostUsd === undefined ? {} : { maxCostUsd }) };
}

/** Starts a batch of children (`runAll`: at most `limit` at once), each call answered by its own. */
function launch(
  state: SubagentsState,
  batch: readonly { readonly callId: string; readonly input: ToolInput }[],
): void {
  const { options } = state;
  const budget = carve(state, batch.length);
  const entries: LaunchEntry[] = batch.map(({ callId, input }) => ({
    callId,
    input,
    spec: specOf(input),
    controller: new AbortController(),
    index: ++state.started,
    done: deferred<SpawnResult>(),
    running: false,
  }));
  if ("status" in budget) {
    for (const entry of entries) entry.done.resolve(budget);
  } else {
    const tasks = entries.map((entry) => childTask(state, entry, budget));
    // A child runAll never started (cancelled while waiting for a slot) is answered here.
    const answerUnstarted = (error: (at: number) => unknown) => {
      entries.forEach((entry, at) => {
        if (!entry.running) entry.done.resolve(notRun(state, entry.controller.signal, error(at)));
      });
    };
    const runAll = options.runAll ?? defaultRunAll;
    state.batchDone = runAll(tasks, { limit: options.limit, signal: options.signal }).then(
      (settled) => {
        answerUnstarted((at) => {
          const one = settled[at];
          return one === undefined || one.ok ? new Error("没有运行") : one.error;
        });
      },
      (error: unknown) => answerUnstarted(() => error),
    );
  }
  for (const entry of entries) track(state, entry);
}

/** Where a started child is found: by its call, and by the input its call will run with. */
function track(state: SubagentsState, entry: LaunchEntry): void {
  const result = entry.done.promise;
  const child: Child = {
    callId: entry.callId,
    input: entry.input,
    controller: entry.controller,
    result,
    claimed: false,
  };
  const before = state.byCall.get(entry.callId);
  if (before !== undefined) state.byInput.delete(before.input);
  state.byCall.set(entry.callId, child);
  state.byInput.set(entry.input, child);
  state.all.add(child);
  void result.finally(() => state.all.delete(child));
}

/**
 * One child as a task of `runAll`: it gets the signal runAll passes (the parent's cancel) and
 * its own (a call that does not run after all); either one ends the child. Its spend counts
 * against the parent once it ends.
 */
function childTask(state: SubagentsState, entry: LaunchEntry, share: ChildBudget) {
  const { options, children } = state;
  return async (signal: AbortSignal) => {
    entry.running = true;
    reserve(state, share, 1);
    options.notify?.(`coding-agent：子 Agent #${entry.index} 开始：${entry.spec.goal}\n`);
    try {
      const outcome = await options.runChild(
        entry.spec,
        share,
        AbortSignal.any([signal, entry.controller.signal]),
        entry.index,
      );
      children.steps += outcome.steps;
      children.toolCalls += outcome.toolCalls;
      children.tokens += outcome.usage.inputTokens + outcome.usage.outputTokens;
      children.costUsd += outcome.costUsd ?? 0;
      state.spent = addChildSpend(state.spent, outcome);
      options.onChildEnd?.({ index: entry.index, callId: entry.callId, outcome });
      options.notify?.(
        `coding-agent：子 Agent #${entry.index} 结束：${outcome.status}（${outcome.code}），改动 ${outcome.files.length} 个文件\n`,
      );
      entry.done.resolve(resultOf(outcome));
      return outcome;
    } catch (error) {
      options.notify?.(`coding-agent：子 Agent #${entry.index} 结束：failed\n`);
      entry.done.resolve(notRun(state, entry.controller.signal, error));
      throw error;
    } finally {
      reserve(state, share, -1);
    }
  };
}

/** The result of a child that failed or never ran: cancelled when it was cancelled. */
function notRun(state: SubagentsState, own: AbortSignal, error: unknown): SpawnResult {
  const cancelled = state.options.signal.aborted || own.aborted;
  return {
    status: cancelled ? "cancelled" : "failed",
    code: cancelled ? "cancelled" : "subagent_error",
    summary: cancelled ? "子 Agent 已取消" : `子 Agent 运行出错：${messageOf(error)}`,
    patch: "",
    files: [],
  };
}

function reserve(state: SubagentsState, share: ChildBudget, sign: 1 | -1): void {
  const { reserved } = state;
  reserved.steps += sign * share.limits.maxSteps;
  reserved.toolCalls += sign * (share.limits.maxToolCalls ?? 0);
  reserved.tokens += sign * (share.limits.maxTokens ?? 0);
  reserved.costUsd += sign * (share.maxCostUsd ?? 0);
}

/** Cancels the children whose calls did not run, and waits until they are gone. */
async function dropUnclaimed(state: SubagentsState): Promise<void> {
  const dropped = [...state.byCall.values()].filter((child) => !child.claimed);
  for (const child of dropped) child.controller.abort(new Error("spawn_agent 调用没有执行"));
  await Promise.all(dropped.map((child) => child.result));
  state.byCall.clear();
  state.byInput.clear();
}

/**
 * The `spawn_agent` tool as the model sees it (its description and input schema) with
 * `execute`; a replay gives it a stand-in that never runs.
 */
export function spawnAgentTool(parentAllows: PathAllowance, execute: Tool["execute"]): Tool {
  return {
    description:
      "启动一个子 Agent：它在工作区的隔离副本里完成 goal（allowPaths 限定它能改的路径，只能比本次运行的更窄），返回 { status, summary, patch }；patch 是它的改动（统一 diff），要用你自己的编辑工具应用。同一回复里的多个 spawn_agent 同时运行。",
    inputSchema: spawnInputSchema(parentAllows),
    execute,
  };
}

/** `{ goal, allowPaths? }`: each glob a valid `--allow-path`, inside the parent's. */
export function spawnInputSchema(parentAllows: PathAllowance) {
  return z.strictObject({
    goal: z.string().trim().min(1, "goal 不能为空"),
    allowPaths: z
      .array(
        z.string().check((ctx) => {
          const problem = allowPathProblem(ctx.value)?.replace("--allow-path", "allowPaths");
          if (problem !== undefined) {
            ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
          } else if (!parentAllows(ctx.value.replace(/\/+$/, ""))) {
            ctx.issues.push({
              code: "custom",
              message: `allowPaths 只能比本次运行的 --allow-path 更窄：${ctx.value}`,
              input: ctx.value,
            });
          }
        }),
      )
      .optional(),
  });
}

function specOf(input: ToolInput): ChildSpec {
  const goal = String(input.goal ?? "").trim();
  const allowPaths = Array.isArray(input.allowPaths) ? input.allowPaths.map(String) : [];
  return { goal, allowPaths };
}

function resultOf(outcome: ChildOutcome): SpawnResult {
  return {
    status: outcome.status,
    code: outcome.code,
    summary: outcome.summary,
    patch: outcome.patch,
    files: outcome.files,
    ...(outcome.excluded.length === 0 ? {} : { excluded: outcome.excluded }),
  };
}

function refused(code: string, summary: string): SpawnResult {
  return { status: "budget_exceeded", code, summary, patch: "", files: [] };
}

function stop(code: ExtensionStop["code"], reason: string): ExtensionStop {
  return { kind: "stop", code, reason };
}

function sameInput(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A promise and the function that resolves it (the first call wins). */
function deferred<T>(): { readonly promise: Promise<T>; readonly resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
