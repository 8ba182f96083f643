import type { RunResult, TokenUsage } from "@coding-agent/agent-core";
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
