import type { StateEvent } from "../state/log.ts";

/**
 * A replay's place in a state log: the recorded transitions in order, each taken once as
 * today's runtime reaches it. `resumed` lines mark a restart, not a decision: they are
 * passed over; so are the `hook_decision` lines of PostToolUse and Stop hooks, whose effect
 * is in the lines after them (the rewritten or vetoed `tool_result`, the `finish_rejected`).
 * A `subagent_finished` line (a child's spending) is passed over too.
 * A PreToolUse decision is a transition of its own: the replayer takes it (a vetoed call
 * has no other line; a rewritten one's intent holds the new input). What is not taken when the run ends is where the replay and the log part.
 *
 * The calls of a concurrent batch (reads, `spawn_agent`) are all started before the first is
 * recorded, so their intents come first and their results after, in call order: a call's
 * result is taken where it stands in its step (`takeResult`), and passed over later.
 */
export interface ReplayCursor {
  /** The next recorded transition, or undefined past the end. */
  peek(): StateEvent | undefined;
  /** Takes the next transition (after `peek` said it is the expected one). */
  take(): StateEvent | undefined;
  /**
   * Takes the `tool_result` of `callId` if the log has one before the step ends (the next
   * `model_reply` or `run_finished`); later calls' intents may stand between.
   */
  takeResult(callId: string): Extract<StateEvent, { type: "tool_result" }> | undefined;
}

export function createReplayCursor(events: readonly StateEvent[]): ReplayCursor {
  // The first line is run_started: the replay starts from it, it is not a step.
  let index = 1;
  /** Results taken ahead of the cursor: passed over when it reaches them. */
  const taken = new Set<number>();
  const skipMarks = () => {
    while (skipped(events[index]) || taken.has(index)) index += 1;
  };
  return {
    peek() {
      skipMarks();
      return events[index];
    },
    take() {
      skipMarks();
      const event = events[index];
      if (event !== undefined) index += 1;
      return event;
    },
    takeResult(callId) {
      skipMarks();
      for (let at = index; at < events.length; at += 1) {
        const event = events[at] as StateEvent;
        if (event.type === "model_reply" || event.type === "run_finished") return undefined;
        if (event.type === "tool_result" && event.callId === callId && !taken.has(at)) {
          taken.add(at);
          return event;
        }
      }
      return undefined;
    },
  };
}

function skipped(event: StateEvent | undefined): boolean {
  // A child's end is its spending (counted from the log), not a decision of the parent's loop.
  if (event?.type === "resumed" || event?.type === "subagent_finished") return true;
  return event?.type === "hook_decision" && event.event !== "PreToolUse";
}
