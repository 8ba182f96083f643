import { UnhandledActionError } from "./errors.ts";
import type { Provider } from "./provider.ts";
import type { ToolSet } from "./tool.ts";

/** 第 1 周的运行可能的四种结局。 */
export type AgentStatus = "completed" | "failed" | "budget_exceeded" | "cancelled";

/** 由循环自己执行的预算；从不指望模型自己停下。 */
export interface AgentLimits {
  /** 一次运行允许的模型响应数（正整数）。 */
  readonly maxSteps: number;
  /** 同一个动作最多可以连续出现几次（正整数）。 */
  readonly maxRepeatedActions: number;
}

/** 每次运行都以这些值之一结束；调用方从不需要解析异常来知道原因。 */
export interface AgentRunResult {
  readonly status: AgentStatus;
  /** 运行结束的原因（中文），给 CLI 和 Trace 用。 */
  readonly summary: string;
  /** 收到的有效模型响应数，包括结束运行的那一个。 */
  readonly steps: number;
  /** `message:…` 是模型自己说的话，`tool:NAME:JSON` 是工具返回的内容。 */
  readonly observations: readonly string[];
}

/**
 * 运行最小的 Agent Loop：询问模型，执行它的动作，把发生的事写回 observations，重复，直到模型完成或
 * 某个守卫停止运行。
 * @param task 用户要求做的事
 * @param provider 模型
 * @param tools 模型可以按名字调用的工具
 * @param limits 步数与重复的预算
 * @param signal 取消运行；在每次模型调用之前最先检查，每次工具之后再检查
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
    // 先检查取消：在模型回答最后一个允许的步骤时被取消的运行，是用户取消的，而不是预算停下的。两项
    // 检查都在调用之前，所以被停下的运行永远不会调用 Provider（一次调用可能要花钱）。
    if (signal?.aborted) return stop("cancelled", "运行已取消");
    // `steps` 数的是已经收到的回复，所以 maxSteps = 2 恰好允许两次调用。
    if (steps >= limits.maxSteps) {
      return stop("budget_exceeded", `已用完最大步骤数 ${limits.maxSteps}`);
    }
    // 交给 provider 的是副本，它改不了历史。
    const action = await provider.complete({ task, observations: [...observations] }, signal);
    // 最先计数，所以触发守卫的那个动作也被计入。
    steps += 1;

    // 最简指纹：键的顺序或换一个 callId 都能骗过它（总项目里修好了这一点）。
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
        // 只认自己的属性：像 "toString" 这样的名字不能找到 Object.prototype.toString。
        const tool = Object.hasOwn(tools, action.tool) ? tools[action.tool] : undefined;
        if (tool === undefined) return stop("failed", `未知工具：${action.tool}`);
        try {
          // #region exercise
          // 解答：工具的返回值序列化后写进 observations，下一轮请求才带着这份证据。
          const value = await tool.execute(action.input, signal);
          observations.push(`tool:${action.tool}:${JSON.stringify(value)}`);
          // #endregion exercise
        } catch (error) {
          // 因为运行被取消而放弃的工具并没有失败。
          if (signal?.aborted) return stop("cancelled", "运行已取消");
          const reason = error instanceof Error ? error.message : String(error);
          return stop("failed", `工具 ${action.tool} 失败：${reason}`);
        }
        // 工具之后再检查一次：工具运行期间到达的取消在这里结束运行。
        if (signal?.aborted) return stop("cancelled", "运行已取消");
        break;
      }
      default: {
        // 新的 Action 变体如果这里没有分支，就无法编译。
        const unhandled: never = action;
        throw new UnhandledActionError(unhandled);
      }
    }
  }
}
