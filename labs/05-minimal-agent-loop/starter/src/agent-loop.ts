import { UnhandledActionError } from "./errors.ts";
import type { Provider } from "./provider.ts";
import type { ToolSet } from "./tool.ts";

/** The four ways a week-1 run can end. */
export type AgentStatus = "completed" | "failed" | "budget_exceeded" | "cancelled";

/** Budgets the loop enforces itself; the model is never trusted to stop on its own. */
export interface AgentLimits {
  /** Model responses allowed in one run (a positive integer). */
  readonly maxSteps: number;
  /** How many times in a row the same action may appear (a positive integer). */
  readonly maxRepeatedActions: number;
}

/** Every run ends with one of these values; callers never parse an exception to learn why. */
export interface AgentRunResult {
  readonly status: AgentStatus;
  /** Why the run ended, in Chinese, for the CLI and the trace. */
  readonly summary: string;
  /** Valid model responses received, including the one that ended the run. */
  readonly steps: number;
  /** `message:…` for the model's own words, `tool:NAME:JSON` for what a tool returned. */
  readonly observations: readonly string[];
}

/**
 * Runs the minimal agent loop: ask the model, act on its action, write what happened back
 * into the observations, and repeat until the model finishes or a guard stops the run.
 *
 * @param task what the user asked for
 * @param provider the model
 * @param tools the tools the model may call, by name
 * @param limits step and repetition budgets
 * @param signal cancels the run; checked first before each model call, and after each tool
 */
export async function runAgent(
  task: string,
  provider: Provider,
  tools: ToolSet,
  limits: AgentLimits,
  signal?: AbortSignal,
): Promise<AgentRunResult> {
  const observations: string[] = [];
  let steps = 0;
  let lastFingerprint: string | undefined;
  let repeats = 0;

  const stop = (status: AgentStatus, summary: string): AgentRunResult => ({
    status,
    summary,
    steps,
    observations,
  });

  while (true) {
    // Cancel is checked first: a run cancelled while the model answered its last allowed
    // step was cancelled by the user, not stopped by a budget. Both checks sit before the
    // call, so a stopped run never reaches the provider (a call may cost money).
    if (signal?.aborted) return stop("cancelled", "运行已取消");
    // `steps` counts responses already received, so maxSteps = 2 allows exactly two calls.
    if (steps >= limits.maxSteps) {
      return stop("budget_exceeded", `已用完最大步骤数 ${limits.maxSteps}`);
    }
    // The provider gets a copy, so it cannot rewrite the history.
    const action = await provider.complete({ task, observations: [...observations] }, signal);
    // Counted before anything else, so the action that trips a guard is counted too.
    steps += 1;

    // Minimal fingerprint: key order and a changing callId both defeat it (the capstone fixes that).
    const fingerprint = JSON.stringify(action);
    repeats = fingerprint === lastFingerprint ? repeats + 1 : 1;
    lastFingerprint = fingerprint;
    if (repeats > limits.maxRepeatedActions) {
      return stop(
        "budget_exceeded",
        `同一动作连续出现 ${repeats} 次，超过上限 ${limits.maxRepeatedActions}`,
      );
    }

    switch (action.type) {
      case "finish":
        return stop("completed", action.summary);
      case "message":
        observations.push(`message:${action.content}`);
        break;
      case "tool_call": {
        // Own properties only: a name like "toString" must not find Object.prototype.toString.
        const tool = Object.hasOwn(tools, action.tool) ? tools[action.tool] : undefined;
        if (tool === undefined) return stop("failed", `未知工具：${action.tool}`);
        try {
          // #region exercise
          // TODO(lab-05): 工具执行了，返回值却被丢掉，下一轮模型看不到它。
          // 保存 execute 的返回值，按 `tool:工具名:JSON` 的格式追加到 observations。
          await tool.execute(action.input, signal);
          // #endregion exercise
        } catch (error) {
          // A tool that gave up because the run was cancelled has not failed.
          if (signal?.aborted) return stop("cancelled", "运行已取消");
          const reason = error instanceof Error ? error.message : String(error);
          return stop("failed", `工具 ${action.tool} 失败：${reason}`);
        }
        // Checked again after the tool: a cancel that arrived while it ran ends the run here.
        if (signal?.aborted) return stop("cancelled", "运行已取消");
        break;
      }
      default: {
        // A new Action variant without a branch here fails to compile.
        const unhandled: never = action;
        throw new UnhandledActionError(unhandled);
      }
    }
  }
}
