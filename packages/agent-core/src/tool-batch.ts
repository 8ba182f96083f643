import type { ToolCallInfo } from "./extension.ts";
import type { Message, RunHistory } from "./messages.ts";
import { type Run, type Stop, traceStop } from "./run-state.ts";
import {
  begin,
  finish,
  type PendingCall,
  type Prepared,
  prepare,
  proceed,
  runToolCall,
  settle,
  type ToolOutcome,
  toolFailed,
} from "./tool-call.ts";
import type { CallRef } from "./tool-record.ts";

/**
 * Runs a reply's tool calls. Consecutive calls to tools marked `concurrent` (reads) run at
 * the same time; every other call runs alone, in order. Either way each call is prepared in
 * order (its budget checked, the extensions asked), and results reach the history, the
 * extensions and the trace's completions in the reply's call order, so a run's records do not
 * depend on which read finished first. If the run stops midway, the calls not run still get
 * a result saying so: no call in the history is left unanswered.
 */
export async function runCalls(run: Run, calls: readonly PendingCall[]): Promise<Stop | undefined> {
  let index = 0;
  while (index < calls.length) {
    // No tool runs once the trace cannot record it; it gets a `not_run` result below.
    const traced = traceStop(run);
    if (traced !== undefined) return notRun(run, calls.slice(index), traced);
    let end = index;
    while (end < calls.length && run.tools.get((calls[end] as PendingCall).name)?.concurrent) {
      end += 1;
    }
    if (end - index >= 2) {
      const batch = await runBatch(run, calls.slice(index, end));
      index += batch.answered;
      if (batch.stop !== undefined) return notRun(run, calls.slice(index), batch.stop);
      continue;
    }
    const stop = await runToolCall(run, calls[index] as PendingCall);
    index += 1;
    if (stop !== undefined) return notRun(run, calls.slice(index), stop);
  }
  return undefined;
}

/** Answers calls that will not run, naming why, and passes the stop on. */
function notRun(run: Run, rest: readonly PendingCall[], stop: Stop): Stop {
  const step = run.guard.steps;
  for (const { action } of rest) {
    const ref = { run, step, callId: action.callId, tool: action.tool };
    toolFailed(ref, { code: "not_run", message: `未执行：${stop.reason}` }, false);
  }
  return stop;
}

/** A started call of a batch: what it will be recorded with once the calls before it are. */
interface Started {
  readonly call: CallRef;
  readonly info: ToolCallInfo;
  readonly outcome: Promise<ToolOutcome>;
}

/**
 * Calls that may overlap: each is prepared in turn and started at once, so the next one's
 * extensions are asked while it runs; then each is recorded in order. A call that will not run
 * (its input invalid, vetoed, over a budget, cancelled) ends the batch there: the calls started
 * before it are recorded first, then its own result, so the order holds. Returns the stop, if
 * any, and how many calls of the batch got a result.
 */
async function runBatch(
  run: Run,
  batch: readonly PendingCall[],
): Promise<{ readonly stop?: Stop; readonly answered: number }> {
  const started: Started[] = [];
  for (let index = 0; index < batch.length; index += 1) {
    const pending = batch[index] as PendingCall;
    const call: CallRef = { run, step: run.guard.steps, ...pending.action };
    // What preparing writes (a call that will not run) waits for the calls started before it.
    const held = holdingHistory(run.history);
    const scoped: CallRef = { ...call, run: { ...run, history: held } };
    const prepared: Prepared = await prepare(scoped, pending.name);
    if (prepared.kind === "ready" && prepared.answer === undefined) {
      const refused = begin(scoped, prepared.info);
      if (refused === undefined) {
        started.push({ call, info: prepared.info, outcome: settle(call, prepared.info) });
        continue;
      }
      const first = await recordAll(started);
      held.release();
      return { stop: first ?? refused, answered: index + 1 };
    }
    const first = await recordAll(started);
    held.release();
    if (first !== undefined) {
      // The run stopped on an earlier call: this one, prepared but not run, says so.
      if (prepared.kind === "ready") {
        toolFailed(call, { code: "not_run", message: `未执行：${first.reason}` }, false);
      } else if (prepared.kind === "error") {
        toolFailed(call, prepared.error, true);
      }
      return { stop: first, answered: index + 1 };
    }
    const stop = await proceed(call, prepared);
    return { ...(stop === undefined ? {} : { stop }), answered: index + 1 };
  }
  const stop = await recordAll(started);
  return { ...(stop === undefined ? {} : { stop }), answered: batch.length };
}

/**
 * Records started calls in order, each once it has settled. Every one is recorded (it ran),
 * even after one of them stops the run; the first stop is the run's.
 */
async function recordAll(started: Started[]): Promise<Stop | undefined> {
  let first: Stop | undefined;
  for (const { call, info, outcome } of started.splice(0)) {
    const stop = await finish(call, info, await outcome);
    first ??= stop;
  }
  return first;
}

/** A history whose appends wait until `release` writes them, in order, to `history`. */
function holdingHistory(history: RunHistory): RunHistory & { release(): void } {
  const held: { readonly message: Message; readonly flat: boolean }[] = [];
  return {
    append: (message) => void held.push({ message, flat: false }),
    appendFlat: (message) => void held.push({ message, flat: true }),
    view: () => history.view(),
    get length() {
      return history.length + held.length;
    },
    release() {
      for (const { message, flat } of held.splice(0)) {
        if (flat) history.appendFlat(message);
        else history.append(message);
      }
    },
  };
}
