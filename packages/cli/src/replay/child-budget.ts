import {
  createRunAccount,
  type Limits,
  type RunAccount,
  type RunExtension,
} from "@coding-agent/agent-core";
import type { StateEvent } from "../state/log.ts";
import { loggedChildSpend } from "../state/resume.ts";
import { SPAWN_AGENT } from "../subagents/spawn-tool.ts";
import {
  budgetSpendOf,
  CHARGED_AS,
  childrenOverBudget,
  countParent,
  type Spend,
} from "../subagents/spend.ts";

/** A replay's account of its children's spending, and the extension that charges it. */
export interface ReplayedChildAccount {
  /** Given to the replay's `runAgent`: its guard counts the children's logged spend. */
  readonly account: RunAccount;
  readonly extension: RunExtension;
}

/**
 * A replay's stand-in for the children's charges (lesson 39): no child runs, but the replay's
 * run account is charged from the log where the run's was. The run charged a child as it
 * ended, before its `spawn_agent` call got its result; so when the replay writes a
 * `spawn_agent` result, every child logged (`subagent_finished`) up to that call's child is
 * charged, in log order — what the run had charged by then, summed in the run's order. A run
 * whose children's spending stopped it, before a model call or a tool call, stops there again
 * with the same code and reason: the replay's guard makes the check the run's made.
 */
export function replayedChildAccount(events: readonly StateEvent[]): ReplayedChildAccount {
  const ends = events.filter(
    (event): event is Extract<StateEvent, { type: "subagent_finished" }> =>
      event.type === "subagent_finished",
  );
  const account = createRunAccount({ chargedAs: CHARGED_AS });
  let charged = 0;
  return {
    account,
    extension: {
      name: "replay-subagents",
      onTrace(event) {
        if (event.type !== "tool_completed" || event.tool !== SPAWN_AGENT) return;
        // Not found (the call started no child, or its child was charged already): -1.
        const at = ends.findIndex((end, index) => index >= charged && end.callId === event.callId);
        for (const end of ends.slice(charged, at + 1)) account.charge(budgetSpendOf(end));
        charged = Math.max(charged, at + 1);
      },
    },
  };
}

/**
 * The replay's budget check before the run account existed: the children's share before
 * step n's call was the `subagent_finished` lines before that `model_reply` (or, for the call
 * the run never made, before its `run_finished`); the parent's own counted from the trace.
 *
 * @deprecated Superseded by `replayedChildAccount`, which charges the replay's run account
 * (the check is then the replay's guard's, before tool calls too). Not used by the replay;
 * kept only while subagents-spend.test.ts pins it; delete with it.
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
