import type { StateEvent } from "../state/log.ts";

type EventOf<T extends StateEvent["type"]> = Extract<StateEvent, { type: T }>;

/**
 * A replay's place in a state log: the recorded transitions in order, each taken once as
 * today's runtime reaches it. `resumed` lines mark a restart, not a decision: they are
 * passed over. What is not taken when the run ends is where the replay and the log part.
 */
export interface ReplayCursor {
  /** The next recorded transition, or undefined past the end. */
  peek(): StateEvent | undefined;
  /** Takes the next transition (after `peek` said it is the expected one). */
  take(): StateEvent | undefined;
}

export function createReplayCursor(events: readonly StateEvent[]): ReplayCursor {
  // The first line is run_started: the replay starts from it, it is not a step.
  let index = 1;
  const skipMarks = () => {
    while (events[index]?.type === "resumed") index += 1;
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
  };
}

/** A recorded transition as a person reads it in a divergence reason. */
export function describeEvent(event: StateEvent | undefined): string {
  if (event === undefined) return "日志已经结束";
  switch (event.type) {
    case "model_reply":
      return `第 ${event.step} 步的模型回复`;
    case "tool_intent":
      return `工具调用 ${event.tool}（${event.callId}）`;
    case "tool_result":
      return `工具结果（${event.callId}）`;
    case "finish_rejected":
      return `第 ${event.step} 步的完成被拒绝`;
    case "run_finished":
      return `运行结束（${event.status}，${event.code}）`;
    case "run_started":
    case "resumed":
      return event.type;
    default: {
      const unreachable: never = event;
      throw new TypeError(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

export type RecordedFinish = EventOf<"run_finished"> & {
  readonly reason?: unknown;
  readonly steps?: unknown;
  readonly toolCalls?: unknown;
};
