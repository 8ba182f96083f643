import type { Limits, RunExtension } from "@coding-agent/agent-core";
import type { StateEvent } from "../state/log.ts";
import { loggedChildSpend } from "../state/resume.ts";
import { budgetSpendOf, childrenOverBudget, countParent, type Spend } from "../subagents/spend.ts";

/**
 * A replay's stand-in for the subagents' budget check (lesson 39): no child runs, but a
 * run whose children's spending stopped it before a model call must stop there again.
 * Before step n's call the run had counted every child that ended before its reply n was
 * logged (its children are all done by then: each one answered its call), so the children's share is the `subagent_finished` lines before that
 * `model_reply` — or, for the call the run never made, before its `run_finished`. The
 * parent's own share is counted from the replay's trace events, as the run counted it.
 */
export function replayedChildBudget(
  events: readonly StateEvent[],
  limits: Limits,
  maxCostUsd: number | undefined,
): RunExtension {
  const replyAt = new Map<number, number>();
  let endAt = Number.POSITIVE_INFINITY;
  for (const event of events) {
    if (event.type === "model_reply" && !replyAt.has(event.step))
      replyAt.set(event.step, event.seq);
    if (event.type === "run_finished") endAt = event.seq;
  }
  const parent: Spend = { steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 };
  return {
    name: "replay-subagents",
    beforeModelCall(request) {
      const children = loggedChildSpend(events, replyAt.get(request.step) ?? endAt);
      return childrenOverBudget(limits, maxCostUsd, parent, budgetSpendOf(children));
    },
    onTrace(event) {
      countParent(parent, event);
    },
  };
}
