import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  HOOK_DENIED,
  type ModelRequest,
  type ModelResponse,
  type Provider,
  READ_ONLY_TOOLS,
  type RunExtension,
  readTestReport,
  type TestEvidence,
  toolError,
} from "@coding-agent/agent-core";
import { hashBytes, removeLeftoverTemps } from "@coding-agent/tools";
import { addChildSpend, NOTHING_SPENT, type SubagentsSpent } from "../subagents/spend.ts";
import { removeOrphanedCopies } from "../subagents/workspace-copy.ts";
import type { EditJournal } from "./edit-journal.ts";
import { settleHalfEdit } from "./half-edit.ts";
import type { StateEvent } from "./log.ts";
import type { PredictedFile } from "./predict-edits.ts";
import type { RecordedPricing } from "./recorded-price.ts";
import type { AlreadyLogged } from "./recorder.ts";

type EventOf<T extends StateEvent["type"]> = Extract<StateEvent, { type: T }>;

/** What a resume rebuilds from a state log (lesson 23). */
export interface ResumePlan {
  readonly started: EventOf<"run_started">;
  readonly replies: readonly EventOf<"model_reply">[];
  readonly results: ReadonlyMap<string, EventOf<"tool_result">>;
  /** Intents without a result: the calls a crash left in doubt. */
  readonly inDoubt: ReadonlyMap<string, EventOf<"tool_intent">>;
  readonly rejections: readonly EventOf<"finish_rejected">[];
  /** Calls a PreToolUse hook vetoed, by call id, with the message the model got. */
  readonly hookVetoes: ReadonlyMap<string, string>;
  readonly logged: AlreadyLogged;
  /** Versions after each recorded call, for the finish gate and loop detection. */
  readonly versions: ReadonlyMap<string, string>;
  /** The latest recorded `run_tests` report, with its version. */
  readonly tests: TestEvidence | null;
  /** Script turns the fake model already used. */
  readonly turnsUsed: number;
  /** What the run's children spent before it stopped (its `subagent_finished` lines). */
  readonly subagents: SubagentsSpent;
  /** The seq the next event gets. */
  readonly nextSeq: number;
}

export type ResumePlanResult =
  | { readonly ok: true; readonly plan: ResumePlan }
  | { readonly ok: false; readonly finished: true; readonly status: string; readonly code: string }
  | { readonly ok: false; readonly finished: false; readonly message: string };

/** Reads what a log says happened; a finished run is not resumed. */
export function planResume(events: readonly StateEvent[]): ResumePlanResult {
  const [started] = events;
  if (started?.type !== "run_started") {
    return { ok: false, finished: false, message: "状态日志不是以 run_started 开头" };
  }
  const replies: EventOf<"model_reply">[] = [];
  const intents = new Map<string, EventOf<"tool_intent">>();
  const results = new Map<string, EventOf<"tool_result">>();
  const rejections: EventOf<"finish_rejected">[] = [];
  const hookVetoes = new Map<string, string>();
  let tests: TestEvidence | null = null;
  let turnsUsed = 0;
  for (const event of events) {
    switch (event.type) {
      case "run_finished":
        return { ok: false, finished: true, status: event.status, code: event.code };
      case "model_reply":
        replies.push(event);
        turnsUsed = typeof event.turn === "number" ? event.turn : replies.length;
        break;
      case "tool_intent":
        intents.set(event.callId, event);
        break;
      case "tool_result": {
        results.set(event.callId, event);
        const report = testReport(intents.get(event.callId)?.tool, event);
        if (report !== undefined) tests = report;
        break;
      }
      case "finish_rejected":
        rejections.push(event);
        break;
      case "hook_decision":
        if (event.event === "PreToolUse" && event.decision === "veto" && event.callId) {
          hookVetoes.set(event.callId, event.message ?? "");
        }
        break;
      default:
        break;
    }
  }
  const inDoubt = new Map([...intents].filter(([callId]) => !results.has(callId)));
  return {
    ok: true,
    plan: {
      started,
      replies,
      results,
      inDoubt,
      rejections,
      hookVetoes,
      logged: {
        replies: replies.length,
        intents: new Set(intents.keys()),
        results: new Set(results.keys()),
        rejections: rejections.length,
      },
      versions: new Map([...results].map(([callId, result]) => [callId, result.version])),
      tests,
      turnsUsed,
      subagents: loggedChildSpend(events),
      nextSeq: events.length + 1,
    },
  };
}

/**
 * What a log's children spent: its `subagent_finished` lines before seq `before` (all of
 * them without it), in log order — the order the run added them up in, so a resume's and a
 * replay's sum is the run's to the last bit. A resume and a replay's result take the whole
 * log's; a replay's budget check takes what the run had counted before a model call.
 */
export function loggedChildSpend(
  events: readonly StateEvent[],
  before = Number.POSITIVE_INFINITY,
): SubagentsSpent {
  let spent = NOTHING_SPENT;
  for (const event of events) {
    if (event.seq >= before) break;
    if (event.type === "subagent_finished") spent = addChildSpend(spent, event);
  }
  return spent;
}

/** A recorded `run_tests` result as the finish gate reads it (one rule: `readTestReport`). */
function testReport(
  tool: string | undefined,
  result: EventOf<"tool_result">,
): TestEvidence | undefined {
  if (tool !== "run_tests" || !result.ok) return undefined;
  const report = readTestReport(result.value);
  return report === undefined ? undefined : { ...report, version: result.version };
}

/**
 * The model of a resumed run: the recorded replies first (step by step, with their call
 * ids and usage, so budgets already spent count again), then `next` (a real model, or
 * the fake one's script from where the log ends). `pricing` learns which reply is a
 * recorded one (a recorded fallback reply costs the fallback's price).
 */
export function replayingProvider(
  plan: ResumePlan,
  next: Provider,
  pricing?: RecordedPricing,
): Provider {
  return {
    complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
      const recorded = plan.replies[request.step - 1];
      pricing?.served(recorded);
      if (recorded === undefined) return next.complete(request, signal);
      return Promise.resolve(recordedResponse(recorded));
    },
  };
}

/**
 * A logged reply as the provider gave it. The log keeps every reply as a list; a reply of
 * one action was given as `action` (a finish can only come that way, and its tool call's id
 * is `call_<step>`, where a list's first is `call_<step>_1`), so it is given back as one.
 */
export function recordedResponse(reply: EventOf<"model_reply">): ModelResponse {
  const [first, ...rest] = reply.actions;
  const usage = {
    ...(reply.usage === undefined ? {} : { usage: reply.usage }),
    ...(reply.model === undefined ? {} : { model: reply.model }),
    // Kept so the resumed history hands it back to the vendor, as the first run did.
    ...(reply.reasoning === undefined ? {} : { reasoning: reply.reasoning }),
  };
  const listed = first?.type === "tool_call" && first.callId !== `call_${reply.step}`;
  if (first !== undefined && rest.length === 0 && !listed) {
    return { action: first, ...usage } as ModelResponse;
  }
  return { actions: reply.actions, ...usage } as ModelResponse;
}

/** Tools whose in-doubt call is run again: they change nothing (or only re-run the tests). */
const RERUNNABLE: ReadonlySet<string> = new Set([...READ_ONLY_TOOLS, "run_tests"]);
const EDIT_TOOLS: ReadonlySet<string> = new Set(["edit_file", "write_file", "apply_edits"]);

/** What a resume does with a call the crash left in doubt (docs/contracts.md §7). */
export type InDoubtDecision =
  /** Run it again: it changes nothing, or an edit whose files are still as before it. */
  | "run"
  /** Do not run it: every file is already in the state it produces. */
  | "applied"
  /** Do not run it: a file is neither as before nor as after it. */
  | "stale"
  /** Never run again (a command): the model is told it was interrupted. */
  | "interrupted";

/**
 * Decides a call in doubt: a read-only tool (and `run_tests`) runs again; an edit compares
 * each file it changes (`files`: hashes before and after, recorded in its intent) with
 * the file now (`now`, same order; null for a missing file); anything else — a command,
 * a tool it does not know — is never run twice. An edit without a prediction was refused
 * when it was planned, so it wrote nothing: it runs again.
 */
export function decideInDoubt(
  tool: string,
  files: readonly PredictedFile[] | undefined,
  now: readonly (string | null)[],
): InDoubtDecision {
  if (RERUNNABLE.has(tool)) return "run";
  if (!EDIT_TOOLS.has(tool)) return "interrupted";
  if (files === undefined || files.length === 0) return "run";
  if (files.every((file, index) => now[index] === file.after)) return "applied";
  if (files.every((file, index) => now[index] === file.before)) return "run";
  return "stale";
}

/**
 * Answers, in a resumed run, every call the log already has: a recorded result is given
 * back without running the tool; a call in doubt is decided by `decide` (`decideInDoubt`
 * by default). A recorded rejection of a finish is given again, and a call a PreToolUse
 * hook vetoed is vetoed again with the recorded message, so the resumed run takes the path
 * the run took without running those hooks twice. With the run's `journal`, an edit of
 * several files that the crash left half written (the decision says `stale`) is settled
 * whole, forward or back (`settleHalfEdit`), and the model is told which.
 */
export function createResumeExtension(
  plan: ResumePlan,
  workspace: string,
  options: { readonly decide?: typeof decideInDoubt; readonly journal?: EditJournal } = {},
): RunExtension {
  const decide = options.decide ?? decideInDoubt;
  const rejectedAt = new Map(plan.rejections.map((event) => [event.step, event]));
  return {
    name: "resume",
    async beforeToolCall(call) {
      // A call a hook vetoed is vetoed again from the log: the hook is not run twice.
      const vetoed = plan.hookVetoes.get(call.callId);
      if (vetoed !== undefined) {
        return { kind: "veto", error: { code: HOOK_DENIED, message: vetoed } };
      }
      const recorded = plan.results.get(call.callId);
      if (recorded !== undefined) {
        const value = recorded.ok
          ? recorded.value
          : toolError(recorded.error?.code ?? "tool_error", recorded.error?.message ?? "");
        return { kind: "answer", value };
      }
      const intent = plan.inDoubt.get(call.callId);
      if (intent === undefined) return undefined;
      const { files } = intent;
      const now = await Promise.all((files ?? []).map((file) => currentHash(workspace, file.path)));
      const decision = decide(intent.tool, files, now);
      if (decision === "stale" && files !== undefined && files.length > 1 && options.journal) {
        const settled = await settleHalfEdit({
          workspace,
          files,
          now,
          journal: options.journal,
          key: intent.key,
        });
        return { kind: "answer", value: settled };
      }
      return answerInDoubt(intent.tool, files ?? [], decision);
    },
    onFinish(proposal) {
      if (proposal.step > plan.logged.replies) return undefined;
      const rejected = rejectedAt.get(proposal.step);
      if (rejected === undefined) return undefined;
      return { kind: "reject", reasons: rejected.reasons, message: rejected.content };
    },
  };
}

function answerInDoubt(tool: string, files: readonly PredictedFile[], decision: InDoubtDecision) {
  switch (decision) {
    case "run":
      return undefined;
    case "applied":
      return {
        kind: "answer" as const,
        value: {
          applied: true,
          resumed: true,
          files: files.map((file) => ({ path: file.path, hash: file.after })),
          note: "运行中断前这次编辑已经写入；恢复时没有再写一次。",
        },
      };
    case "stale":
      return {
        kind: "answer" as const,
        value: toolError(
          "stale_file",
          `运行中断后 ${files.map((file) => file.path).join("、")} 既不是编辑前的内容，也不是编辑后的内容：没有写入。请重新 read_file 再编辑。`,
        ),
      };
    case "interrupted":
      return {
        kind: "answer" as const,
        value: toolError(
          "interrupted",
          `运行在 ${tool} 执行期间中断：它可能已经执行，也可能没有；恢复时不会再执行一次。请先查看工作区的状态再决定下一步。`,
        ),
      };
    default: {
      const unreachable: never = decision;
      throw new TypeError(`unhandled decision ${String(unreachable)}`);
    }
  }
}

/**
 * Removes what a killed run left: the temporary file of a write that never reached its
 * rename, beside each file an edit in doubt changes, and the isolated copies (worktrees)
 * of subagents whose process is gone. Runs before anything reads the workspace, so no
 * temporary file counts as a change. Returns the workspace paths removed.
 */
export async function removeCrashLeftovers(plan: ResumePlan, workspace: string) {
  await removeOrphanedCopies();
  const removed: string[] = [];
  for (const intent of plan.inDoubt.values()) {
    for (const file of intent.files ?? []) {
      removed.push(...(await removeLeftoverTemps(path.join(workspace, file.path))));
    }
  }
  return removed.map((file) => path.relative(workspace, file));
}

async function currentHash(workspace: string, file: string): Promise<string | null> {
  try {
    return hashBytes(await readFile(path.join(workspace, file)));
  } catch {
    return null;
  }
}
