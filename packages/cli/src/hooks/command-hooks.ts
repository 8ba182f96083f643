import {
  formatValueIssues,
  type Hooks,
  type HookVeto,
  type Redactor,
  redactJson,
  type ToolInput,
  toValueIssues,
} from "@coding-agent/agent-core";
import { z } from "zod";
import { runHookCommand } from "./run-hook.ts";
import type { HookEntry, HookEvent } from "./settings.ts";
import { hookVerdict } from "./verdict.ts";

/** Characters of a hook's stderr that reach the model, the trace or the state log. */
export const MAX_HOOK_MESSAGE_CHARS = 2_000;

/**
 * What the state log records of a hook (`hook_decision`): only decisions that changed the
 * run (a veto, a failure — vetoed too — or a rewrite), with what a replay and a resume need
 * to take the same path without running the hook: the vetoed call and the message, or the
 * rewritten input. (A rewritten result is the call's `tool_result` itself.)
 */
export interface HookDecision {
  readonly event: HookEvent;
  readonly hook: string;
  readonly decision: "veto" | "rewrite";
  readonly step: number;
  readonly callId?: string;
  readonly message?: string;
  readonly input?: ToolInput;
}

/** What each event's stdout may hold, and its keys (for the verdict). */
const PreToolUseOutput = [
  z.strictObject({ input: z.record(z.string(), z.json()).optional() }),
  ["input"],
] as const;
const PostToolUseOutput = [z.strictObject({ result: z.json().optional() }), ["result"]] as const;
const StopOutput = [z.strictObject({}), []] as const;

/** What running a hook needs from its run. */
interface HookContext {
  readonly workspace: string;
  readonly env: NodeJS.ProcessEnv;
  readonly redact: Redactor;
  readonly warn: (line: string) => void;
  readonly judge: typeof hookVerdict;
  /** Hooks already named on stderr as failed (by label). */
  readonly named: Set<string>;
}

/** The entries of `event` whose matcher takes `tool` (all of them without a tool). */
function entriesFor(entries: readonly HookEntry[], event: HookEvent, tool?: string) {
  return entries.filter(
    (entry) =>
      entry.event === event &&
      (tool === undefined || entry.matcher === undefined || entry.matcher.test(tool)),
  );
}

/** A hook's text as it may be shown: redacted, trimmed and bounded. */
function clipText(redact: Redactor, text: string): string {
  const masked = redact(text.trim());
  return masked.length > MAX_HOOK_MESSAGE_CHARS
    ? `${masked.slice(0, MAX_HOOK_MESSAGE_CHARS)}…（已截断）`
    : masked;
}

/** Runs one entry: its parsed stdout, or a veto (exit 2, or a failure). */
async function askHook<T>(
  context: HookContext,
  asked: {
    readonly entry: HookEntry;
    readonly event: Record<string, unknown>;
    readonly output: readonly [z.ZodType<T>, readonly string[]];
    readonly signal: AbortSignal;
  },
): Promise<{ readonly ok: true; readonly output: T | undefined } | HookVeto> {
  const { entry, event, signal } = asked;
  const [schema, fields] = asked.output;
  const ran = await runHookCommand({
    command: entry.command,
    cwd: context.workspace,
    stdin: JSON.stringify(event),
    timeoutMs: entry.timeoutMs,
    env: context.env,
    signal,
  });
  const verdict = context.judge(ran, { fields, timeoutMs: entry.timeoutMs });
  if (verdict.kind === "failed") return hookFailed(context, entry, verdict.why, verdict.stderr);
  if (verdict.kind === "veto") {
    const message = clipText(context.redact, verdict.message);
    return { kind: "veto", message: message === "" ? `hook ${entry.label} 拒绝了` : message };
  }
  if (verdict.output === undefined) return { ok: true, output: undefined };
  // The verdict checked the keys; the values must be of the event's kind too.
  const parsed = schema.safeParse(verdict.output);
  if (!parsed.success) {
    const details = formatValueIssues(toValueIssues(parsed.error.issues), "；");
    const why = `stdout 的 JSON 不是这个事件能用的形状：${details}`;
    return hookFailed(context, entry, why, "stderr" in ran ? ran.stderr : "");
  }
  return { ok: true, output: parsed.data };
}

/** A hook that failed: a veto, and one line on stderr the first time this hook fails. */
function hookFailed(context: HookContext, entry: HookEntry, why: string, stderr = ""): HookVeto {
  const { redact } = context;
  const excerpt = clipText(redact, stderr);
  // Once per hook: a hook that fails at every call is one line, not one per call.
  if (!context.named.has(entry.label)) {
    context.named.add(entry.label);
    const matcher =
      entry.matcherText === undefined ? "（所有工具）" : JSON.stringify(entry.matcherText);
    context.warn(
      redact(
        `coding-agent：hook ${entry.label} 失败（${why}），按拒绝处理：事件 ${entry.event}，matcher ${matcher}，命令 ${JSON.stringify(entry.command)}\n`,
      ),
    );
  }
  const message = `hook ${entry.label} 失败（${why}），按拒绝处理${excerpt === "" ? "" : `：${excerpt}`}`;
  return { kind: "veto", message: clipText(redact, message) };
}

/** The state log's record of the hooks' rewrite of a call. */
function rewriteOf(
  event: "PreToolUse" | "PostToolUse",
  call: { readonly step: number; readonly callId: string },
) {
  return {
    event,
    hook: "command-hooks",
    decision: "rewrite",
    step: call.step,
    callId: call.callId,
  } as const;
}

/** Writes a hook's veto to the state log before it takes effect, and returns it. */
async function recordVeto(
  record: (decision: HookDecision) => Promise<void>,
  vetoed: {
    readonly event: HookEvent;
    readonly entry: HookEntry;
    readonly verdict: HookVeto;
    readonly step: number;
    readonly callId?: string;
  },
): Promise<HookVeto> {
  const { event, entry, verdict, step, callId } = vetoed;
  await record({
    event,
    hook: entry.label,
    decision: "veto",
    step,
    ...(callId === undefined ? {} : { callId }),
    message: verdict.message,
  });
  return verdict;
}

/**
 * The command hooks of a run as agent-core hooks (lesson 36): `tools` (PreToolUse and
 * PostToolUse) and `stop` (Stop), to be placed apart in the run's extensions. Each matching
 * entry runs in order; the first veto wins and the rest are not run; rewrites are passed
 * on (the next hook gets the rewritten input or result). Exit 0 allows (stdout: nothing,
 * or a JSON object with `input` / `result`); exit 2 vetoes with its stderr; anything else
 * (another exit, a signal, a timeout, stdout that is not that JSON) fails closed: vetoed,
 * and one line on the CLI's stderr names the hook. Everything a hook wrote is bounded and
 * redacted before it goes anywhere.
 */
export function createCommandHooks(options: {
  readonly entries: readonly HookEntry[];
  readonly runId: string;
  readonly workspace: string;
  readonly redact: Redactor;
  readonly env: NodeJS.ProcessEnv;
  /** One line for the CLI's stderr (a hook that failed). */
  readonly warn: (line: string) => void;
  /** Writes a decision to the state log before it takes effect. */
  readonly record: (decision: HookDecision) => Promise<void>;
  /** Replaces how a command's end is judged (lesson 36's exercise plugs in here). */
  readonly verdict?: typeof hookVerdict;
}): { readonly tools: Hooks | undefined; readonly stop: Hooks | undefined } {
  const { entries, runId, workspace, redact, record } = options;
  const context: HookContext = {
    workspace,
    env: options.env,
    redact,
    warn: options.warn,
    judge: options.verdict ?? hookVerdict,
    named: new Set<string>(),
  };
  const of = (event: HookEvent, tool?: string) => entriesFor(entries, event, tool);
  const ask = <T>(
    entry: HookEntry,
    event: Record<string, unknown>,
    output: readonly [z.ZodType<T>, readonly string[]],
    signal: AbortSignal,
  ) => askHook(context, { entry, event, output, signal });

  const base = { runId, workspace };
  const veto = (
    event: HookEvent,
    entry: HookEntry,
    verdict: HookVeto,
    step: number,
    callId?: string,
  ) =>
    recordVeto(record, {
      event,
      entry,
      verdict,
      step,
      ...(callId === undefined ? {} : { callId }),
    });

  const hasTools = entries.some((entry) => entry.event !== "Stop");
  const tools: Hooks | undefined = hasTools
    ? {
        name: "command-hooks",
        async preToolUse(call, signal) {
          let input = call.input;
          let rewritten = false;
          for (const entry of of("PreToolUse", call.tool)) {
            const about = { ...base, tool: call.tool, callId: call.callId };
            const event = { event: "PreToolUse", ...about, input };
            const answer = await ask(entry, event, PreToolUseOutput, signal);
            if ("kind" in answer) {
              return veto("PreToolUse", entry, answer, call.step, call.callId);
            }
            if (answer.output?.input !== undefined) {
              input = answer.output.input as ToolInput;
              rewritten = true;
            }
          }
          if (!rewritten) return undefined;
          await record({ ...rewriteOf("PreToolUse", call), input });
          return { kind: "rewrite", input };
        },
        async postToolUse(call, value, signal) {
          let result = redactJson(redact, value);
          let rewritten = false;
          for (const entry of of("PostToolUse", call.tool)) {
            const about = { ...base, tool: call.tool, callId: call.callId };
            const event = { event: "PostToolUse", ...about, input: call.input, result };
            const answer = await ask(entry, event, PostToolUseOutput, signal);
            if ("kind" in answer) {
              return veto("PostToolUse", entry, answer, call.step, call.callId);
            }
            if (answer.output !== undefined && "result" in answer.output) {
              result = answer.output.result;
              rewritten = true;
            }
          }
          if (!rewritten) return undefined;
          await record(rewriteOf("PostToolUse", call));
          return { kind: "rewrite", result };
        },
      }
    : undefined;

  const stop: Hooks | undefined = entries.some((entry) => entry.event === "Stop")
    ? {
        name: "command-hooks-stop",
        async stop(proposal, signal) {
          for (const entry of of("Stop")) {
            const event = { event: "Stop", ...base, summary: proposal.summary };
            const answer = await ask(entry, event, StopOutput, signal);
            if ("kind" in answer) return veto("Stop", entry, answer, proposal.step);
          }
          return undefined;
        },
      }
    : undefined;
  return { tools, stop };
}
