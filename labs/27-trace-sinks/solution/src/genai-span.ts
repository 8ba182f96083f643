import type { TraceEvent } from "@coding-agent/agent-core";

/** 一个 span 的开始：名字和属性（OpenTelemetry GenAI 语义约定的属性名）。 */
export interface GenAiSpan {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/**
 * 一个开始事件对应的 OpenTelemetry GenAI span：
 * run_started → `invoke_agent`，model_started → `chat <model>`，tool_started → `execute_tool <工具名>`；
 * 其余事件不开始 span，返回 undefined。
 * 属性只写操作、提供方、模型、工具名和调用 id——目标、输入这些消息内容不进属性
 * （只有用户明确打开内容采集时才另外加上，那是总项目的事）。
 */
export function genAiSpanOf(
  event: TraceEvent,
  model: { readonly provider: string; readonly name: string },
): GenAiSpan | undefined {
  // #region exercise
  const common = { "gen_ai.provider.name": model.provider, "gen_ai.request.model": model.name };
  switch (event.type) {
    case "run_started":
      return {
        name: "invoke_agent",
        attributes: { ...common, "gen_ai.operation.name": "invoke_agent" },
      };
    case "model_started":
      return {
        name: `chat ${model.name}`,
        attributes: { ...common, "gen_ai.operation.name": "chat" },
      };
    case "tool_started":
      return {
        name: `execute_tool ${event.tool}`,
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": event.tool,
          "gen_ai.tool.call.id": event.callId,
        },
      };
    default:
      return undefined;
  }
  // #endregion exercise
}
