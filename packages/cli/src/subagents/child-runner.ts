/**
 * What a child is given (its goal, its share of the parent's budget) and what it gives back:
 * the contract between `spawn_agent` and the function that runs a child (`child-run.ts`).
 */
import type { Limits, RunStatus, TokenUsage } from "@coding-agent/agent-core";

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

/** Runs one child in its own copy; it must stop, and remove its copy, when `signal` fires. */
export type ChildRunner = (
  spec: ChildSpec,
  budget: ChildBudget,
  signal: AbortSignal,
  index: number,
) => Promise<ChildOutcome>;
