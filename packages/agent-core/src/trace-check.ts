import type { TraceEvent } from "./trace.ts";

/** What is wrong with a trace, at the first event that shows it. */
export type TraceProblem =
  /** `seq` is not the previous one plus 1 (the first is 1): a lost, doubled or reordered event. */
  | "seq_gap"
  /** `atMs` went back: events out of order, or a clock that is not the run's. */
  | "time_backwards"
  /** The first event (or the first after `resumed`) is not `run_started`. */
  | "not_started"
  /** An event after `run_finished`. */
  | "after_finish"
  /** A completion without its start (model: same step; tool: same call id), or a second start. */
  | "unmatched"
  /** A call still open when the next model call or the end came. */
  | "left_open"
  /** The trace ends without `run_finished`. */
  | "unfinished";

/** The verdict on a trace: whole and well-formed, or the first problem with its seq. */
export type TraceCheck =
  | { readonly ok: true; readonly events: number }
  | {
      readonly ok: false;
      readonly problem: TraceProblem;
      /** The seq of the event where the problem shows (the last event's for `unfinished`). */
      readonly seq: number;
      readonly message: string;
    };

/**
 * Checks that `events` are one run's trace as the loop writes it: seq 1, 2, … without
 * gaps, times that never go back, `run_started` first and `run_finished` last, every
 * `model_completed` after the `model_started` of its step, every `tool_completed` after
 * the `tool_started` of its call, and no call left open at the next model call or at the
 * end. A `resumed` event (a resumed run's trace file) starts the run's next part: the part
 * before it may end anywhere (a crash), and `run_started` must follow it. Pure: a report,
 * a replay or a test asks it of any list of events.
 */
export function checkTrace(events: readonly TraceEvent[]): TraceCheck {
  let openModel: number | undefined;
  const openTools = new Set<string>();
  let started = false;
  let finished = false;
  let lastAt = Number.NEGATIVE_INFINITY;
  const problem = (event: TraceEvent, kind: TraceProblem, message: string): TraceCheck => ({
    ok: false,
    problem: kind,
    seq: event.seq,
    message: `第 ${event.seq} 个事件（${event.type}）：${message}`,
  });
  for (const [index, event] of events.entries()) {
    if (event.seq !== index + 1) {
      return problem(event, "seq_gap", `seq 应为 ${index + 1}`);
    }
    if (!(event.atMs >= lastAt)) {
      return problem(event, "time_backwards", `atMs ${event.atMs} 早于前一个事件的 ${lastAt}`);
    }
    lastAt = event.atMs;
    if (event.type === "resumed") {
      // The part before a resume may have stopped anywhere: a crash leaves calls open.
      openModel = undefined;
      openTools.clear();
      started = false;
      finished = false;
      continue;
    }
    if (finished) return problem(event, "after_finish", "run_finished 之后不应再有事件");
    if (!started) {
      if (event.type !== "run_started") return problem(event, "not_started", "应先有 run_started");
      started = true;
      continue;
    }
    switch (event.type) {
      case "run_started":
        return problem(event, "unmatched", "一次运行只能有一个 run_started");
      case "model_started":
        if (openModel !== undefined) {
          return problem(event, "unmatched", `第 ${openModel} 步的模型调用还没有结束`);
        }
        if (openTools.size > 0) {
          return problem(event, "left_open", `工具调用 ${[...openTools].join("、")} 没有结束`);
        }
        openModel = event.step;
        break;
      case "model_retry":
        if (openModel !== event.step) {
          return problem(event, "unmatched", `第 ${event.step} 步没有进行中的模型调用`);
        }
        break;
      case "model_completed":
        if (openModel !== event.step) {
          return problem(event, "unmatched", `第 ${event.step} 步没有对应的 model_started`);
        }
        openModel = undefined;
        break;
      case "tool_started":
        if (openTools.has(event.callId)) {
          return problem(event, "unmatched", `调用 ${event.callId} 已经开始过`);
        }
        openTools.add(event.callId);
        break;
      case "tool_completed":
        if (!openTools.delete(event.callId)) {
          return problem(event, "unmatched", `调用 ${event.callId} 没有对应的 tool_started`);
        }
        break;
      case "run_finished":
        if (openModel !== undefined || openTools.size > 0) {
          const open = [
            ...(openModel === undefined ? [] : [`第 ${openModel} 步的模型调用`]),
            ...[...openTools].map((callId) => `工具调用 ${callId}`),
          ];
          return problem(event, "left_open", `${open.join("、")}没有结束`);
        }
        finished = true;
        break;
      case "finish_rejected":
      case "compacted":
        break;
      default: {
        const unreachable: never = event;
        throw new TypeError(`unhandled trace event ${JSON.stringify(unreachable)}`);
      }
    }
  }
  const last = events.at(-1);
  if (last === undefined) {
    return { ok: false, problem: "unfinished", seq: 0, message: "轨迹是空的" };
  }
  if (!finished) return problem(last, "unfinished", "轨迹在 run_finished 之前就结束了");
  return { ok: true, events: events.length };
}
