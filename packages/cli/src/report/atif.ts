import { z } from "zod";
import type { StateEvent } from "../state/log.ts";

/**
 * ATIF, the Agent Trajectory Interchange Format that Harbor and other harnesses read: RFC
 * 0001 of the Harbor project ("Agent Trajectory Interchange Format (ATIF) Specification",
 * laude-institute/harbor, docs/rfcs/0001-trajectory-format.md), version 1.4. The schema below
 * is that RFC's field list, strict: a field the RFC does not name is an error, so a file this
 * CLI writes never carries something another reader would reject.
 */
export const ATIF_VERSION = "ATIF-v1.4";

const Extra = z.record(z.string(), z.json());

const MetricsSchema = z.strictObject({
  prompt_tokens: z.int().min(0).optional(),
  completion_tokens: z.int().min(0).optional(),
  cached_tokens: z.int().min(0).optional(),
  cost_usd: z.number().min(0).optional(),
  prompt_token_ids: z.array(z.int()).optional(),
  completion_token_ids: z.array(z.int()).optional(),
  logprobs: z.array(z.number()).optional(),
  extra: Extra.optional(),
});

const ToolCallSchema = z.strictObject({
  tool_call_id: z.string().min(1),
  function_name: z.string().min(1),
  arguments: z.record(z.string(), z.json()),
});

const ObservationSchema = z.strictObject({
  results: z.array(
    z.strictObject({
      source_call_id: z.string().optional(),
      content: z.string().optional(),
      subagent_trajectory_ref: z
        .array(
          z.strictObject({
            session_id: z.string(),
            trajectory_path: z.string().optional(),
            extra: Extra.optional(),
          }),
        )
        .optional(),
    }),
  ),
});

const StepSchema = z.strictObject({
  step_id: z.int().min(1),
  timestamp: z.string().optional(),
  source: z.enum(["system", "user", "agent"]),
  model_name: z.string().optional(),
  reasoning_effort: z.union([z.string(), z.number()]).optional(),
  message: z.string(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  observation: ObservationSchema.optional(),
  metrics: MetricsSchema.optional(),
  extra: Extra.optional(),
});

/** A whole trajectory, as RFC 0001 v1.4 defines its root object. */
export const AtifTrajectorySchema = z
  .strictObject({
    schema_version: z.string().regex(/^ATIF-v1\.\d+$/),
    session_id: z.string().min(1),
    agent: z.strictObject({
      name: z.string().min(1),
      version: z.string().min(1),
      model_name: z.string().optional(),
      extra: Extra.optional(),
    }),
    steps: z.array(StepSchema),
    notes: z.string().optional(),
    final_metrics: z
      .strictObject({
        total_prompt_tokens: z.int().min(0).optional(),
        total_completion_tokens: z.int().min(0).optional(),
        total_cached_tokens: z.int().min(0).optional(),
        total_cost_usd: z.number().min(0).optional(),
        total_steps: z.int().min(0).optional(),
        extra: Extra.optional(),
      })
      .optional(),
    extra: Extra.optional(),
  })
  .refine((trajectory) => trajectory.steps.every((step, index) => step.step_id === index + 1), {
    message: "step_id 必须从 1 开始连续编号",
  });

export type AtifTrajectory = z.infer<typeof AtifTrajectorySchema>;
type AtifStep = z.infer<typeof StepSchema>;

/** A reply's token counts as the state log records them. */
interface ReplyUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly reasoningTokens?: number;
}

type ReplyAction = Extract<StateEvent, { type: "model_reply" }>["actions"][number];

/** A reply's text (its messages and finish summary) and its tool calls, in ATIF's shape. */
function replyParts(actions: readonly ReplyAction[]) {
  const texts: string[] = [];
  const calls: z.infer<typeof ToolCallSchema>[] = [];
  for (const action of actions) {
    if (action.type === "message" && typeof action.content === "string") texts.push(action.content);
    if (action.type === "finish" && typeof action.summary === "string") texts.push(action.summary);
    if (action.type === "tool_call") {
      calls.push({
        tool_call_id: String(action.callId),
        function_name: String(action.tool),
        arguments: (action.input ?? {}) as Record<string, z.infer<typeof Extra>[string]>,
      });
    }
  }
  return { texts, calls };
}

/** A reply's ATIF metrics. */
function metricsOf(usage: ReplyUsage) {
  return {
    prompt_tokens: usage.inputTokens ?? 0,
    completion_tokens: usage.outputTokens ?? 0,
    ...(usage.cachedInputTokens === undefined ? {} : { cached_tokens: usage.cachedInputTokens }),
    ...(usage.reasoningTokens === undefined
      ? {}
      : { extra: { reasoning_tokens: usage.reasoningTokens } }),
  };
}

/**
 * How a run's process ended when it did not end on its own, as the one who ran it saw it:
 * an eval harness killed it at its trial's time limit (`timeout`), or it exited or was killed
 * without printing a result (`crash`).
 */
export type RunCut = "timeout" | "crash";

/** What the reader of the log knows beyond the events: who cut the run, a dropped torn line. */
export interface AtifEnding {
  readonly cut?: RunCut;
  /** The log's last line was cut short by a kill mid-write and left out. */
  readonly tornLastLine?: boolean;
}

/**
 * The root `notes` and `extra` of a trajectory: how its run ended. ATIF v1.4 has no field
 * for a trajectory that stops before its run's end; RFC 0001 gives the root object `extra`,
 * "custom root-level metadata not covered by the core schema" (since v1.1), and `notes`,
 * "explanations for format discrepancies". So the run's own end is `extra.status` and
 * `extra.code`; a trajectory cut short says `extra.incomplete: true` with
 * `extra.incomplete_reason` (`timeout`, `crash`, or `unfinished`: the log has no
 * `run_finished` and nobody said why), and `notes` says it in words.
 */
function rootEnd(events: readonly StateEvent[], ending: AtifEnding) {
  const finished = events.findLast((event) => event.type === "run_finished");
  const extra: Record<string, string | boolean> =
    finished?.type === "run_finished" ? { status: finished.status, code: finished.code } : {};
  const notes: string[] = [];
  if (ending.cut === "timeout")
    notes.push("评测在试验的时限处停止了这次运行，轨迹只到停止的那一刻");
  if (ending.cut === "crash") notes.push("运行的进程没有输出结果就结束了（被杀掉或崩溃）");
  if (finished === undefined) notes.push("运行没有正常结束（state.jsonl 里没有 run_finished）");
  if (ending.tornLastLine) notes.push("state.jsonl 的最后一行写到一半就中断了，已丢弃");
  // A run that wrote run_finished is whole, unless a harness's time limit stopped it.
  const reason =
    ending.cut === "timeout"
      ? "timeout"
      : finished === undefined
        ? (ending.cut ?? "unfinished")
        : undefined;
  if (reason !== undefined) {
    extra.incomplete = true;
    extra.incomplete_reason = reason;
  }
  return {
    ...(notes.length === 0 ? {} : { notes: notes.join("；") }),
    ...(Object.keys(extra).length === 0 ? {} : { extra }),
  };
}

/**
 * A run's state log as an ATIF trajectory: the goal as the user's step; each model reply as
 * an agent step (its text, its reasoning, its tool calls with their results as the
 * observation, its tokens as metrics); each rejected finish as the user message the
 * model was shown. Every step, call, result and token count of the log is kept; a log that
 * stops before the run's end (or a run `ending` says was cut) is marked incomplete.
 */
export function toAtif(
  events: readonly StateEvent[],
  agent: { readonly name: string; readonly version: string },
  ending: AtifEnding = {},
): AtifTrajectory {
  const started = events.find((event) => event.type === "run_started");
  const results = new Map<string, Extract<StateEvent, { type: "tool_result" }>>();
  for (const event of events) if (event.type === "tool_result") results.set(event.callId, event);
  const steps: AtifStep[] = [];
  const push = (step: Omit<AtifStep, "step_id">) =>
    steps.push({ step_id: steps.length + 1, ...step });
  if (started?.type === "run_started") {
    push({ source: "user", message: started.goal, timestamp: started.startedAt });
  }
  let models: string | undefined;
  const totals = { prompt: 0, completion: 0, cached: 0 };
  for (const event of events) {
    if (event.type === "finish_rejected") {
      push({ source: "user", message: event.content, extra: { finish_rejected: event.reasons } });
      continue;
    }
    if (event.type !== "model_reply") continue;
    const { texts, calls } = replyParts(event.actions);
    const usage = event.usage as ReplyUsage | undefined;
    totals.prompt += usage?.inputTokens ?? 0;
    totals.completion += usage?.outputTokens ?? 0;
    totals.cached += usage?.cachedInputTokens ?? 0;
    models ??= event.model;
    const reasoning = (event.reasoning as { text?: unknown } | undefined)?.text;
    push({
      source: "agent",
      ...(event.model === undefined ? {} : { model_name: event.model }),
      message: texts.join("\n\n"),
      ...(typeof reasoning === "string" ? { reasoning_content: reasoning } : {}),
      ...(calls.length === 0 ? {} : { tool_calls: calls }),
      ...(calls.length === 0
        ? {}
        : {
            observation: {
              results: calls.map((call) => {
                const result = results.get(call.tool_call_id);
                return {
                  source_call_id: call.tool_call_id,
                  ...(result === undefined ? {} : { content: resultText(result) }),
                };
              }),
            },
          }),
      ...(usage === undefined ? {} : { metrics: metricsOf(usage) }),
      extra: { step: event.step },
    });
  }
  return {
    schema_version: ATIF_VERSION,
    session_id: started?.type === "run_started" ? started.runId : "unknown",
    agent: { ...agent, ...(models === undefined ? {} : { model_name: models }) },
    steps,
    final_metrics: {
      total_prompt_tokens: totals.prompt,
      total_completion_tokens: totals.completion,
      total_cached_tokens: totals.cached,
      total_steps: steps.length,
    },
    ...rootEnd(events, ending),
  };
}

/** What a tool call gave back, as the text ATIF carries: its value, or its error as JSON. */
function resultText(result: Extract<StateEvent, { type: "tool_result" }>): string {
  if (!result.ok) return JSON.stringify({ ok: false, error: result.error ?? null });
  return typeof result.value === "string" ? result.value : JSON.stringify(result.value ?? null);
}
