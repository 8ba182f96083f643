import { type Action, canonicalJson, fingerprintAction } from "./action.ts";
import { InvalidLimitsError } from "./errors.ts";
import type { ExtensionStop, RunExtension } from "./extension.ts";
import type { Message, ToolResultMessage } from "./messages.ts";
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
}

/** One tool call as the detector judges it. */
interface Observed {
  /** The tool and its input, canonical: the same call has the same key. */
  readonly key: string;
  /** The key, what it brought back (whole) and the workspace version after it. */
  readonly fingerprint: string;
  /** Short readable name of the call, for reasons. */
  readonly label: string;
  /** An earlier call in the window was the same call and brought back the same. */
  readonly repeat: boolean;
  /** A repeat with nothing new since its twin: every call in between was a repeat too. */
  readonly noProgress: boolean;
}

/**
 * Loop detection (lesson 24) as a `RunExtension`, not inside the `LoopGuard`: progress is
 * judged by observations, and the guard's checks run when a reply arrives, before any
 * tool result exists; the extension sees each result (`afterToolCall`) and stops before
 * the next model call (`beforeModelCall`). As an extension it costs nothing when not
 * installed, the guard's `maxRepeatedActions` keeps its meaning for the lessons that
 * teach it, and the workspace version, which is I/O, comes in as an injected getter.
 *
 * Rules, over the last `window` tool calls (finishes and messages are not tool calls):
 * a call that brings back exactly what the same call (tool and input) brought back
 * before, at the same workspace version, with nothing new from any call in between,
 * makes no progress; the third such call stops the run (`loop_detected`), as does a
 * cycle of 2 to 4 calls that came round twice (A-B-A-B) with nothing new. "Nothing new
 * in between" keeps polling legitimate: a `sleep` repeated between status checks whose
 * output changes is not stalled. With `maxRepeatedActions`, identical replies in a row
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

  const history: Observed[] = [];
  /** The reply whose tool results are awaited, and what they brought back so far. */
  let pending:
    | { readonly calls: readonly RecordedToolCall[]; readonly actions: readonly Action[] }
    | undefined;
  const results = new Map<string, string>();
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
  const observe = (call: RecordedToolCall, seen: string): ExtensionStop | undefined => {
    const key = `${call.tool}\u0000${canonicalJson(call.input)}`;
    const fingerprint = `${key}\u0000${seen}`;
    let twin = history.length - 1;
    while (twin >= 0 && (history[twin] as Observed).fingerprint !== fingerprint) twin -= 1;
    const repeat = twin >= 0;
    // Polling (a new status, then the same `sleep`) is progress: something new came
    // back since the twin, so the repeat is not stalled.
    const noProgress = repeat && history.slice(twin + 1).every((entry) => entry.repeat);
    history.push({ key, fingerprint, label: labelOf(call), repeat, noProgress });
    if (history.length > window) history.shift();
    return detectLoop(history);
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
        pending = { calls, actions: reply.actions };
        return undefined;
      }
      // A reply of messages only brings back no observation: judged now.
      return countReply(reply.actions, "");
    },
    afterToolCall(call, result) {
      const value = result.ok ? result.value : { error: result.error, ok: false };
      if (!readOnly.has(call.tool)) changes += 1;
      results.set(call.callId, `${stableStringify(value)}\u0000${versionNow()}`);
      return undefined;
    },
    beforeModelCall(request) {
      if (pending === undefined) return undefined;
      const { calls, actions } = pending;
      pending = undefined;
      // A call that never ran (invalid input, a veto) has only its history entry.
      const seen = calls.map(
        (call) =>
          results.get(call.callId) ??
          `${resultText(request.messages, call.callId)}\u0000${versionNow()}`,
      );
      let loop: ExtensionStop | undefined;
      calls.forEach((call, index) => {
        loop ??= observe(call, seen[index] as string);
      });
      results.clear();
      const repeated = countReply(actions, seen.join("\u0001"));
      return loop ?? repeated;
    },
  };
}

/** The third no-progress call in the window, or a cycle come round twice: a stop. */
function detectLoop(history: readonly Observed[]): ExtensionStop | undefined {
  const last = history[history.length - 1] as Observed;
  if (!last.noProgress) return undefined;
  for (const period of CYCLE_PERIODS) {
    const cycle = history.slice(-period);
    // Shorter than the cycle while the window holds fewer than two rounds: not the same.
    const before = history.slice(-2 * period, -period);
    const same = cycle.every((entry, index) => entry.fingerprint === before[index]?.fingerprint);
    // A-A-A-A is one call repeated, not a cycle: the count below names it.
    if (!same || cycle.every((entry) => entry.key === last.key)) continue;
    const names = cycle.map((entry) => entry.label).join(" → ");
    const reason = `检测到循环：${names} 已连续出现 2 轮，观察没有任何变化（同一工作区版本）`;
    return { kind: "stop", code: "loop_detected", reason };
  }
  const stalled = history.filter((entry) => entry.noProgress);
  if (stalled.length < MAX_NO_PROGRESS) return undefined;
  const names = [...new Set(stalled.map((entry) => entry.label))].join("、");
  const reason = `检测到循环：最近 ${history.length} 次工具调用中有 ${stalled.length} 次带回与之前完全相同的观察（同一工作区版本）：${names}`;
  return { kind: "stop", code: "loop_detected", reason };
}

/** Longest input text a reason quotes per call. */
const MAX_LABEL_INPUT = 60;

function labelOf(call: RecordedToolCall): string {
  const input = canonicalJson(call.input);
  const shown = input.length > MAX_LABEL_INPUT ? `${input.slice(0, MAX_LABEL_INPUT)}…` : input;
  return `${call.tool} ${shown}`;
}

/** The recorded result of a call, as the history holds it (empty if none). */
function resultText(messages: readonly Message[], callId: string): string {
  const answer = messages.findLast(
    (message): message is ToolResultMessage => message.role === "tool" && message.callId === callId,
  );
  return answer?.content ?? "";
}
