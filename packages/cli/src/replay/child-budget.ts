import { createRunAccount, type RunAccount, type RunExtension } from "@coding-agent/agent-core";
import type { StateEvent } from "../state/log.ts";
import { budgetSpendOf, CHARGED_AS } from "../subagents/spend.ts";

/** A replay's account of its children's spending, and the extension that charges it. */
export interface ReplayedChildAccount {
  /** Given to the replay's `runAgent`: its guard counts the children's logged spend. */
  readonly account: RunAccount;
  readonly extension: RunExtension;
}

/**
 * A replay's stand-in for the children's charges (lesson 39): no child runs, but the replay's
 * run account is charged from the log as the run's was. The run charged a child as it ended,
 * right before logging its `subagent_finished` line; and it checked each budget right before
 * the transition it logged next (a tool call's intent, a model reply). So before the replay
 * reaches a transition (`next`, the replayer's place in the log), every child logged before
 * it is charged, in log order: the run's sum, to the last bit. A child's call and a read the
 * reply started beside it are checked without the child (it ended after both started), the
 * calls after them and the next model call with it. A run whose children's spending stopped
 * it stops there again, with the same code and reason: the replay's guard makes the check.
 */
export function replayedChildAccount(
  events: readonly StateEvent[],
  next: () => StateEvent | undefined,
): ReplayedChildAccount {
  const ends = events.filter((event): event is ChildEnd => event.type === "subagent_finished");
  const account = createRunAccount({ chargedAs: CHARGED_AS });
  let charged = 0;
  return {
    account,
    extension: {
      name: "replay-subagents",
      // The run's next check comes after a reply or a tool call: charge what it had by then.
      onTrace(event) {
        if (event.type !== "tool_completed" && event.type !== "model_completed") return;
        const before = next()?.seq ?? Number.POSITIVE_INFINITY;
        while (charged < ends.length) {
          const end = ends[charged] as ChildEnd;
          if (end.seq >= before) break;
          account.charge(budgetSpendOf(end));
          charged += 1;
        }
      },
    },
  };
}

type ChildEnd = Extract<StateEvent, { type: "subagent_finished" }>;
