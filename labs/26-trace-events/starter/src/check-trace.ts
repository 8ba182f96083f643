import type { TraceEvent } from "@coding-agent/agent-core";

/** 轨迹哪里不对：在第一个暴露问题的事件上报告。 */
export type TraceProblem =
  /** seq 不是上一个加 1（第一个是 1）：事件丢了、重复了或者乱序了。 */
  | "seq_gap"
  /** atMs 倒退了：事件乱序，或者用的不是这次运行的时钟。 */
  | "time_backwards"
  /** 第一个事件不是 run_started。 */
  | "not_started"
  /** run_finished 之后还有事件。 */
  | "after_finish"
  /** 一个完成事件找不到它的开始：模型调用看 step，工具调用看 callId。 */
  | "unmatched"
  /** 轨迹没有以 run_finished 结束。 */
  | "unfinished";

/** 对一条轨迹的判断：完整无误，或者第一个问题和它所在的 seq。 */
export type TraceCheck =
  | { readonly ok: true; readonly events: number }
  | { readonly ok: false; readonly problem: TraceProblem; readonly seq: number };

/**
 * 检查 `events` 是不是一次运行完整、有序的轨迹：
 * seq 从 1 开始、每次加 1；atMs 从不倒退；第一个是 run_started，最后一个是 run_finished，
 * 之后再没有事件；每个 model_completed 之前有同一步（step）的 model_started，
 * 每个 tool_completed 之前有同一个 callId 的 tool_started。
 * 有问题时返回第一个问题和它所在事件的 seq；空轨迹或没有结束的轨迹是 unfinished（seq 取最后一个事件的，空轨迹为 0）。
 */
export function checkTrace(events: readonly TraceEvent[]): TraceCheck {
  // #region exercise
  // TODO(lab-26): 现在什么都不检查，任何轨迹都算完整。
  //   目标：按上面注释里的规则判断，有问题时报告第一个露出问题的事件：问题的种类和它的 seq。
  //   约束：从头到尾只走一遍；一个回复里可以有几个工具调用同时进行。
  return { ok: true, events: events.length };
  // #endregion exercise
}
