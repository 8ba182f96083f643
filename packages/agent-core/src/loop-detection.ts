import { type Action, canonicalJson, fingerprintAction } from "./action.ts";
import { InvalidLimitsError } from "./errors.ts";
import type { ExtensionStop, RunExtension } from "./extension.ts";
import type { Message } from "./messages.ts";
import { stableStringify } from "./serialize.ts";
import type { RecordedToolCall } from "./tool-call.ts";

/** Tool calls the loop detector looks back over when `window` is not given. */
export const DEFAULT_LOOP_WINDOW = 12;

/** No-progress tool calls within the window that stop a run. */
const MAX_NO_PROGRESS = 3;

/** Shortest and longest cycle (in tool calls) the detector looks for. */
const CYCLE_PERIODS = [2, 3, 4] as const;

/**
 * Tools that never change the workspace, by name: without `version`, the only calls
 * after which the workspace is taken to be unchanged.
 */
export const READ_ONLY_TOOLS: readonly string[] = Object.freeze([
  "echo",
  "sleep",
  "read_file",
  "list_files",
  "search",
  "read_artifact",
]);

/** Options of `createLoopDetection`. */
export interface LoopDetectionOptions {
  /** Tool calls looked back over (`--loop-window`); default 12, at least 2. */
  readonly window?: number;
  /**
   * Consecutive identical replies allowed whose observations did not change
   * (`--max-repeated-actions`): the next one stops the run `repeated_action`. A reply
   * whose call brought back something new is not a repeat. Absent: not counted.
   */
  readonly maxRepeatedActions?: number;
  /**
   * The workspace version after the latest tool call (a hash of its files), read once
   * per call as its result comes back: put whatever updates it before this extension.
   * `undefined` from it means "unknown", and nothing observed then counts as a repeat.
   * Without it, the workspace counts as unchanged only across calls of `readOnlyTools`:
   * any other tool that ran may have changed files, so what came before it is not
   * compared with what comes after.
   */
  readonly version?: () => string | undefined;
  /** Tools that never change files, for the rule above; default `READ_ONLY_TOOLS`. */
  readonly readOnlyTools?: readonly string[];
  /** The verdict on one window; `judgeLoopWindow` by default (lesson 24 writes its own). */
  readonly judge?: (window: readonly LoopWindowEntry[]) => LoopVerdict;
}

/** One tool call in the loop detector's window. */
export interface LoopWindowEntry {
  /** The tool called. */
  readonly tool: string;
  /** Its input as canonical JSON: the same input is the same text. */
  readonly input: string;
  /** What it brought back, whole: its value or its error, serialized. */
  readonly observation: string;
  /** The workspace version after it. */
  readonly version: string;
}

/** Go on, or stop the run as a loop, saying which calls repeat. */
export type LoopVerdict =
  | { readonly stop: false }
  | { readonly stop: true; readonly reason: string };

/**
 * Judges one window of tool calls, oldest first, as the last call closes it. A call
 * makes no progress when an earlier call in the window was the same call (tool and
 * input) that brought back the same observation at the same workspace version, and every
 * call in between was such a repeat too (something new in between, as a status that
 * changed, keeps polling legitimate). Stops when the last call makes no progress and
 * either the last 2 to 4 calls repeat the 2 to 4 before them (a cycle come round twice,
 * named in the reason; one call repeated is not a cycle) or the window holds the third
 * call that made no progress.
 */
export function judgeLoopWindow(window: readonly LoopWindowEntry[]): LoopVerdict {
  const same = (a: LoopWindowEntry | undefined, b: LoopWindowEntry) =>
    a !== undefined &&
    a.tool === b.tool &&
    a.input === b.input &&
    a.observation === b.observation &&
    a.version === b.version;
  const repeat: boolean[] = [];
  const noProgress: boolean[] = [];
  for (const [index, entry] of window.entries()) {
    let twin = index - 1;
    while (twin >= 0 && !same(window[twin], entry)) twin -= 1;
    repeat.push(twin >= 0);
    noProgress.push(twin >= 0 && repeat.slice(twin + 1, index).every(Boolean));
  }
  if (noProgress.at(-1) !== true) return { stop: false };
  for (const period of CYCLE_PERIODS) {
    if (window.length < 2 * period) break;
    const cycle = window.slice(-period);
    const before = window.slice(-2 * period, -period);
    if (!cycle.every((entry, index) => same(before[index], entry))) continue;
    // A-A-A-A is one call repeated, not a cycle: the count below names it.
    const first = cycle[0] as LoopWindowEntry;
    if (cycle.every((entry) => entry.tool === first.tool && entry.input === first.input)) continue;
    const names = cycle.map(labelOf).join(" → ");
    const reason = `检测到循环：${names} 已连续出现 2 轮，观察没有任何变化（同一工作区版本）`;
    return { stop: true, reason };
  }
  const stalled = window.filter((_, index) => noProgress[index]);
  if (stalled.length < MAX_NO_PROGRESS) return { stop: false };
  const names = [...new Set(stalled.map(labelOf))].join("、");
  const reason = `检测到循环：最近 ${window.length} 次工具调用中有 ${stalled.length} 次带回与之前完全相同的观察（同一工作区版本）：${names}`;
  return { stop: true, reason };
}

/**
 * Loop detection (lesson 24) as a `RunExtension`, not inside the `LoopGuard`: progress is
 * judged by observations, and the guard's checks run when a reply arrives, before any
 * tool result exists; the extension sees each result (`afterToolCall`) and stops before
 * the next model call (`beforeModelCall`). As an extension it costs nothing when not
 * installed, the guard's `maxRepeatedActions` keeps its meaning for the lessons that
 * teach it, and the workspace version, which is I/O, comes in as an injected getter.
 *
 * After each call, the last `window` tool calls (finishes and messages are not tool
 * calls) are judged by `judge` (`judgeLoopWindow`: the third call that brings back
 * nothing new, or a cycle of 2 to 4 calls come round twice), a stop being
 * `loop_detected`. With `maxRepeatedActions`, identical replies in a row
 * whose observations did not change are counted too (`repeated_action`); when both
 * rules stop at the same call, `loop_detected` is reported, since it names the cycle.
 * Install it first among the extensions: it compares what the tools returned, before
 * any other extension replaces a result.
 */
export function createLoopDetection(options: LoopDetectionOptions = {}): RunExtension {
  const window = options.window ?? DEFAULT_LOOP_WINDOW;
  if (!Number.isSafeInteger(window) || window < 2) {
    throw new InvalidLimitsError(`invalid loop window: an integer ≥ 2, got ${String(window)}`);
  }
  const maxRepeated = options.maxRepeatedActions;
  if (maxRepeated !== undefined && (!Number.isSafeInteger(maxRepeated) || maxRepeated < 1)) {
    throw new InvalidLimitsError(
      `invalid maxRepeatedActions: an integer ≥ 1, got ${String(maxRepeated)}`,
    );
  }
  const readOnly = new Set(options.readOnlyTools ?? READ_ONLY_TOOLS);
  const judge = options.judge ?? judgeLoopWindow;
  const getVersion = options.version;
  // Without a getter: a count of the calls that may have changed files.
  let changes = 0;
  // A version nobody can match (a getter that answered undefined): unique per call.
  let unknown = 0;
  const versionNow = (): string => {
    if (getVersion === undefined) return `calls:${changes}`;
    const version = getVersion();
    if (version !== undefined) return version;
    unknown += 1;
    return `unknown:${unknown}`;
  };

  const history: LoopWindowEntry[] = [];
  /** The reply whose tool results are awaited, and what they brought back so far. */
  let pending: readonly RecordedToolCall[] = [];
  let pendingActions: readonly Action[] = [];
  const results = new Map<string, { readonly observation: string; readonly version: string }>();
  let lastReply: string | undefined;
  let repeats = 0;

  /** Counts a reply as a repeat or not; a stop once too many came in a row. */
  const countReply = (actions: readonly Action[], seen: string): ExtensionStop | undefined => {
    const reply = `${actions.map(fingerprintAction).join(",")}\u0000${seen}`;
    repeats = reply === lastReply ? repeats + 1 : 1;
    lastReply = reply;
    if (maxRepeated === undefined || repeats <= maxRepeated) return undefined;
    const first = actions[0] as Action;
    const what =
      actions.length === 1 ? `同一个 ${first.type} 动作` : `同一组 ${actions.length} 个动作`;
    const reason = `${what}连续出现 ${repeats} 次且观察没有变化，超过上限 ${maxRepeated}`;
    return { kind: "stop", code: "repeated_action", reason };
  };

  /** Adds one call to the window; a stop when it closes a loop. */
  const observe = (
    call: RecordedToolCall,
    observation: string,
    version: string,
  ): ExtensionStop | undefined => {
    history.push({ tool: call.tool, input: canonicalJson(call.input), observation, version });
    if (history.length > window) history.shift();
    const verdict = judge(history);
    return verdict.stop
      ? { kind: "stop", code: "loop_detected", reason: verdict.reason }
      : undefined;
  };

  return {
    name: "loop-detection",
    afterReply(reply) {
      const calls = reply.actions.filter(
        (action): action is RecordedToolCall => action.type === "tool_call",
      );
      // A finish is the finish gate's business: neither counted nor a break in a repeat.
      if (reply.actions.some((action) => action.type === "finish")) return undefined;
      if (calls.length > 0) {
        pending = calls;
        pendingActions = reply.actions;
        return undefined;
      }
      // A reply of messages only brings back no observation: judged now.
      return countReply(reply.actions, "");
    },
    afterToolCall(call, result) {
      const value = result.ok ? result.value : { error: result.error, ok: false };
      if (!readOnly.has(call.tool)) changes += 1;
      results.set(call.callId, { observation: stableStringify(value), version: versionNow() });
      return undefined;
    },
    beforeModelCall(request) {
      if (pending.length === 0) return undefined;
      const calls = pending;
      const actions = pendingActions;
      pending = [];
      let loop: ExtensionStop | undefined;
      const seenAll: string[] = [];
      for (const call of calls) {
        // A call that never ran (invalid input, a veto) has only its history entry.
        const { observation, version } = results.get(call.callId) ?? {
          observation: resultText(request.messages, call.callId),
          version: versionNow(),
        };
        seenAll.push(`${observation}\u0000${version}`);
        loop ??= observe(call, observation, version);
      }
      results.clear();
      const repeated = countReply(actions, seenAll.join("\u0001"));
      return loop ?? repeated;
    },
  };
}

/** Longest input text a reason quotes per call. */
const MAX_LABEL_INPUT = 60;

/** A call as a reason names it: its tool and the start of its input. */
function labelOf(entry: LoopWindowEntry): string {
  const { input } = entry;
  const shown = input.length > MAX_LABEL_INPUT ? `${input.slice(0, MAX_LABEL_INPUT)}…` : input;
  return `${entry.tool} ${shown}`;
}

/** The recorded result of a call, as the history holds it (empty if none). */
function resultText(messages: readonly Message[], callId: string): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.role === "tool" && message.callId === callId) return message.content;
  }
  return "";
}
