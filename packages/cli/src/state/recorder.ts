import { createHash } from "node:crypto";
import type {
  ExtensionStop,
  RunExtension,
  RunResult,
  ToolCallInfo,
  ToolCallResult,
} from "@coding-agent/agent-core";
import type { EditJournal } from "./edit-journal.ts";
import type { StateLog } from "./log.ts";
import type { PredictedEdit } from "./predict-edits.ts";
import type { WorkspaceTracker } from "./workspace-tracker.ts";

/** What a resumed run already has in its log, so it is not written twice. */
export interface AlreadyLogged {
  /** Model replies logged (steps 1…n). */
  readonly replies: number;
  readonly intents: ReadonlySet<string>;
  readonly results: ReadonlySet<string>;
  readonly rejections: number;
}

const NOTHING_LOGGED: AlreadyLogged = {
  replies: 0,
  intents: new Set(),
  results: new Set(),
  rejections: 0,
};

/** The run's recorder: an extension that writes the state log, and the run's end. */
export interface RunRecorder extends RunExtension {
  /** Logs `run_finished`; false when the log could not be written. */
  finished(result: RunResult): Promise<boolean>;
  /** The first write that failed, if any. */
  readonly failure: string | undefined;
  /**
   * Logs a line that is no transition of the loop's own (a child's `subagent_finished`); a
   * failed write stops the run like any other.
   */
  note(event: Parameters<StateLog["append"]>[0]): Promise<void>;
}

/** What `createRunRecorder` writes to, and what it needs to know. */
export interface RunRecorderOptions {
  readonly runId: string;
  readonly log: StateLog;
  readonly tracker: WorkspaceTracker;
  readonly logged?: AlreadyLogged;
  /** The input an edit tool is about to apply → the files it will change (for a resume). */
  readonly predictEdit?: (call: ToolCallInfo) => Promise<PredictedEdit | undefined>;
  /**
   * Where an edit of several files keeps their bytes until its result is logged, so a
   * resume can finish or undo it whole (lesson 18's transaction across a crash).
   */
  readonly journal?: EditJournal;
  /** Script turns the fake model has used, logged with each reply (its resume goes on from there). */
  readonly turns?: () => number;
}

/**
 * Writes every transition of a run to its state log (lesson 22): each reply, each tool
 * call's intent (on disk before the tool starts) and result with the workspace version
 * after it, each rejected finish. A write that fails ends the run `state_failed` at the
 * next point that can stop it: a run whose log is broken cannot be resumed, so it must
 * not go on doing things.
 */
export function createRunRecorder(options: RunRecorderOptions): RunRecorder {
  const { log, tracker, runId } = options;
  const logged = options.logged ?? NOTHING_LOGGED;
  let rejectionsSeen = 0;
  /** Journaled calls not yet settled: call id → the key their bytes are kept under. */
  const journaled = new Map<string, string>();
  let failure: string | undefined;
  /** Set by the `model_retry` naming a fallback model: this run's later replies are its. */
  let onFallback = false;
  const write = async (event: Parameters<StateLog["append"]>[0], sync = false) => {
    if (failure !== undefined) return;
    try {
      await log.append(event, { sync });
    } catch (error) {
      failure = `状态日志 ${log.file} 写入失败：${(error as Error).message}`;
    }
  };
  const stopIfBroken = (): ExtensionStop | undefined =>
    failure === undefined ? undefined : { kind: "stop", code: "state_failed", reason: failure };
  return {
    name: "state-log",
    get failure() {
      return failure;
    },
    beforeModelCall: () => stopIfBroken(),
    async afterReply(reply) {
      if (reply.step > logged.replies) {
        await write(replyEvent(reply, onFallback, options.turns?.()));
      }
      return stopIfBroken();
    },
    async beforeToolCall(call) {
      if (!logged.intents.has(call.callId)) {
        const predicted = await options.predictEdit?.(call);
        const key = idempotencyKey(runId, call);
        // One rename is atomic, several are not: their bytes are on disk before the intent.
        if (predicted !== undefined && predicted.files.length > 1 && options.journal) {
          await options.journal.save(key, predicted.contents).then(
            () => journaled.set(call.callId, key),
            (error: Error) => {
              failure ??= `编辑日志写入失败：${error.message}`;
            },
          );
        }
        await write(intentEvent(call, key, predicted), true);
      }
      return stopIfBroken();
    },
    async afterToolCall(call, result: ToolCallResult) {
      const version = await tracker.afterCall(call);
      if (!logged.results.has(call.callId)) {
        await write({
          type: "tool_result",
          callId: call.callId,
          ok: result.ok,
          ...(result.ok ? { value: result.value ?? null } : { error: result.error }),
          version,
        });
        // Settled and logged: the bytes kept for a resume are no longer needed.
        const key = journaled.get(call.callId);
        if (key !== undefined && failure === undefined) {
          journaled.delete(call.callId);
          await options.journal?.discard(key).catch(() => undefined);
        }
      }
      return undefined;
    },
    onTrace(event) {
      // The loop stays on the fallback for the rest of this process once it switched.
      if (event.type === "model_retry" && event.fallbackModel !== undefined) onFallback = true;
      if (event.type !== "finish_rejected") return;
      rejectionsSeen += 1;
      if (rejectionsSeen <= logged.rejections) return;
      return write({
        type: "finish_rejected",
        step: event.step,
        reasons: event.reasons,
        content: event.detail,
      });
    },
    note: (event) => write(event),
    async finished(result) {
      await write(finishedEvent(result), true);
      return failure === undefined;
    },
  };
}

type StateLine = Parameters<StateLog["append"]>[0];

/** A reply as `model_reply` records it (with the script turn a fake model's resume goes on from). */
function replyEvent(
  reply: Parameters<NonNullable<RunExtension["afterReply"]>>[0],
  onFallback: boolean,
  turn: number | undefined,
): StateLine {
  return {
    type: "model_reply",
    step: reply.step,
    actions: reply.actions,
    ...(reply.usage === undefined ? {} : { usage: reply.usage }),
    ...(reply.model === undefined ? {} : { model: reply.model }),
    ...(reply.reasoning === undefined ? {} : { reasoning: reply.reasoning }),
    ...(onFallback ? { fallback: true } : {}),
    ...(turn === undefined ? {} : { turn }),
  };
}

/** A call's `tool_intent`: its idempotency key, and an edit's predicted files. */
function intentEvent(
  call: ToolCallInfo,
  key: string,
  predicted: PredictedEdit | undefined,
): StateLine {
  return {
    type: "tool_intent",
    step: call.step,
    callId: call.callId,
    tool: call.tool,
    input: call.input,
    key,
    ...(predicted === undefined ? {} : { files: predicted.files }),
  };
}

/** The run's end as `run_finished` records it. */
function finishedEvent(result: RunResult): StateLine {
  return {
    type: "run_finished",
    status: result.status,
    code: result.code,
    reason: result.status === "completed" ? result.summary : result.reason,
    steps: result.steps,
    toolCalls: result.toolCalls,
  };
}

/** A hash of run, call, tool and input: the same call of the same run has the same key. */
export function idempotencyKey(
  runId: string,
  call: Pick<ToolCallInfo, "callId" | "tool" | "input">,
) {
  return createHash("sha256")
    .update(JSON.stringify([runId, call.callId, call.tool, call.input]))
    .digest("hex");
}
