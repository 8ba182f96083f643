import type { Limits, RunSpend } from "@coding-agent/agent-core";
import type { ChildBudget } from "./child-runner.ts";
import { refused, type SpawnResult } from "./spawn-tool.ts";
import type { Spend } from "./spend.ts";

/** What a batch's share is carved from: the parent's budget and what is spent or promised. */
export interface ShareSource {
  readonly limits: Limits;
  readonly maxCostUsd?: number | undefined;
  /** The parent's own spend (its account's `own()`), the call that starts the batch included. */
  readonly own: RunSpend;
  /** What was charged to the parent's account: what ended children spent. */
  readonly charged: RunSpend;
  /** What running children were given and have not given back yet. */
  readonly reserved: Readonly<Spend>;
  /** Time the parent has run. */
  readonly elapsedMs: number;
}

/**
 * A batch of `count` children's share of what the parent has left: steps (one kept for the
 * parent), tool calls (one kept, and the batch's other calls), tokens and cost, evenly; the
 * whole remaining time each (they run side by side). A refusal when a share would be empty.
 */
export function carveShare(source: ShareSource, count: number): ChildBudget | SpawnResult {
  const { limits, own, charged, reserved } = source;
  const steps = Math.floor(
    (limits.maxSteps - own.steps - charged.steps - reserved.steps - 1) / count,
  );
  if (steps < 1) return refused("max_steps", "父运行剩余的步数不够分给子 Agent");
  const childLimits: Limits & Record<string, number | undefined> = { maxSteps: steps };
  if (limits.maxToolCalls !== undefined) {
    // The call starting the batch is counted in the parent's own calls already; the others not yet.
    const others = count - 1;
    const left =
      limits.maxToolCalls - own.toolCalls - others - charged.toolCalls - reserved.toolCalls - 1;
    childLimits.maxToolCalls = Math.max(0, Math.floor(left / count));
  }
  if (limits.maxTokens !== undefined) {
    const left = limits.maxTokens - own.tokens - charged.tokens - reserved.tokens;
    const share = Math.floor(left / count);
    if (share < 1) return refused("max_tokens", "父运行剩余的 token 不够分给子 Agent");
    childLimits.maxTokens = share;
  }
  if (limits.maxDurationMs !== undefined) {
    const left = Math.floor(limits.maxDurationMs - source.elapsedMs);
    if (left <= 0) return refused("max_duration", "父运行的时间已经用完");
    childLimits.maxDurationMs = left;
  }
  for (const key of ["modelTimeoutMs", "toolTimeoutMs", "maxToolErrors"] as const) {
    if (limits[key] !== undefined) childLimits[key] = limits[key];
  }
  let maxCostUsd: number | undefined;
  if (source.maxCostUsd !== undefined) {
    maxCostUsd = (source.maxCostUsd - own.costUsd - charged.costUsd - reserved.costUsd) / count;
    if (maxCostUsd <= 0) return refused("max_cost", "父运行剩余的成本预算不够分给子 Agent");
  }
  return { limits: childLimits, ...(maxCostUsd === undefined ? {} : { maxCostUsd }) };
}

/** Holds a running child's share out of later batches' (`sign` 1), or gives it back (-1). */
export function reserve(reserved: Spend, share: ChildBudget, sign: 1 | -1): void {
  reserved.steps += sign * share.limits.maxSteps;
  reserved.toolCalls += sign * (share.limits.maxToolCalls ?? 0);
  reserved.tokens += sign * (share.limits.maxTokens ?? 0);
  reserved.costUsd += sign * (share.maxCostUsd ?? 0);
}
