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
  // 进行中的模型调用（它的 step）和工具调用（它们的 callId）。
  let openModel: number | undefined;
  const openTools = new Set<string>();
  let finished = false;
  let lastAt = Number.NEGATIVE_INFINITY;
  for (const [index, event] of events.entries()) {
    const problem = (kind: TraceProblem): TraceCheck => ({
      ok: false,
      problem: kind,
      seq: event.seq,
    });
    // 编号是轨迹的骨架：丢一个、多一个、换个位置，都在这里露出来。
    if (event.seq !== index + 1) return problem("seq_gap");
    if (event.atMs < lastAt) return problem("time_backwards");
    lastAt = event.atMs;
    if (index === 0 && event.type !== "run_started") return problem("not_started");
    if (finished) return problem("after_finish");
    switch (event.type) {
      case "model_started":
        openModel = event.step;
        break;
      case "model_completed":
        if (openModel !== event.step) return problem("unmatched");
        openModel = undefined;
        break;
      case "tool_started":
        openTools.add(event.callId);
        break;
      case "tool_completed":
        if (!openTools.delete(event.callId)) return problem("unmatched");
        break;
      case "run_finished":
        finished = true;
        break;
      default:
        break;
    }
  }
  if (!finished) return { ok: false, problem: "unfinished", seq: events.at(-1)?.seq ?? 0 };
  return { ok: true, events: events.length };
  // #endregion exercise
}
