import {
  type ExtensionStop,
  formatUsd,
  type Limits,
  type RunResult,
  type TokenUsage,
  type TraceEvent,
} from "@coding-agent/agent-core";
import type { ChildOutcome } from "./child-runner.ts";

/** The parent's account names its children's part of a stop reason so: `（其中子 Agent 4 步）`. */
export const CHARGED_AS = "子 Agent";

/** What a run or its children spent, as the budgets count it. */
export interface Spend {
  steps: number;
  toolCalls: number;
  tokens: number;
  costUsd: number;
}

/**
 * Counts the parent's own spending from its trace events (its valid replies, its tools).
 *
 * @deprecated Superseded by the parent's run account (`createRunAccount`), which reads the
 * parent's own spend from its guard. Used only by `replayedChildBudget`, itself kept only
 * while subagents-spend.test.ts pins it; delete with it.
 */
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
 *
 * @deprecated Superseded by the parent's run account: its guard stage makes this check
 * (agent-core `run-account.ts`, the same reasons). Not used by any run; kept only while
 * subagents-spend.test.ts pins it; delete with it.
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
 * What children (or one child's outcome) spent as the budgets count it, what the parent's
 * account is charged: tokens in and out as one figure, an unknown cost as 0. Only a run
 * without a cost budget has one: a cost budget needs every model's price, so there the
 * count is exact.
 */
export function budgetSpendOf(
  spent: Pick<SubagentsSpent, "steps" | "toolCalls" | "usage" | "costUsd">,
): Spend {
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

function stop(code: ExtensionStop["code"], reason: string): ExtensionStop {
  return { kind: "stop", code, reason };
}
