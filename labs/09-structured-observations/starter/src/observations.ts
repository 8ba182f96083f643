import {
  type Message,
  type Tool,
  type ToolError,
  type ToolErrorResult,
  toolError,
} from "@coding-agent/agent-core";

/**
 * 模型读到的一条工具结果：哪个工具的哪次调用（`callId`），以及值（作为观察文本）或错误。
 */
export type Observation =
  | { readonly callId: string; readonly tool: string; readonly ok: true; readonly value: string }
  | {
      readonly callId: string;
      readonly tool: string;
      readonly ok: false;
      readonly error: ToolError;
    };

/**
 * 一次运行的观察，按调用的顺序。每条工具消息按 `callId` 与它的调用配对；一个没有结果的调用是
 * Runtime 的 bug，用抛出报告（每个 API 都会拒绝这样的历史）。
 */
export function observationsOf(messages: readonly Message[]): Observation[] {
  const pending = new Map<string, string>();
  const observations: Observation[] = [];
  for (const message of messages) {
    if (message.role === "assistant" && message.type === "tool_call") {
      pending.set(message.callId, message.tool);
    } else if (message.role === "tool") {
      if (pending.get(message.callId) !== message.tool) {
        throw new Error(`工具结果 ${message.callId} 没有对应的调用`);
      }
      pending.delete(message.callId);
      const { callId, tool } = message;
      observations.push(
        message.ok
          ? { callId, tool, ok: true, value: message.content }
          : { callId, tool, ok: false, error: message.error },
      );
    }
  }
  if (pending.size > 0) throw new Error(`调用 ${[...pending.keys()].join("、")} 没有结果`);
  return observations;
}

/** 文件工具预料之中的 Node 错误码，以及模型看到的错误码。 */
export const EXPECTED_ERROR_CODES: Readonly<Record<string, string>> = {
  ENOENT: "not_found",
  EISDIR: "is_directory",
  ENOTDIR: "not_a_directory",
  EACCES: "permission_denied",
};

/**
 * 同一个工具，预料之中的失败变成结果：找不到文件（`ENOENT`）以
 * `{ ok: false, error: { code: "not_found", message } }` 回给模型，它可以换一个路径试，运行继续。工
 * 具抛出的其他异常是意外，仍然以 `failed / tool_error` 结束运行。
 */
export function withExpectedErrors(tool: Tool): Tool {
  return {
    ...tool,
    async execute(input, signal) {
      // #region exercise
      // TODO(lab-09): 现在工具抛出的任何异常都会让运行以 failed / tool_error 结束，哪怕只是“文件不存在”。
      // 捕获异常，用 toExpectedError(error) 判断：预期内的错误返回那个结果（写回给模型，运行继续）；
      // 预期外的错误（undefined）照旧抛出。
      return tool.execute(input, signal);
      // #endregion exercise
    },
  };
}

/**
 * 工具对预料之中的错误返回的结果（`{ ok: false, error: { code, message } }`）；错误是意外时为
 * undefined。
 */
export function toExpectedError(error: unknown): ToolErrorResult | undefined {
  const code = expectedCode(error);
  if (code === undefined) return undefined;
  return toolError(code, error instanceof Error ? error.message : String(error));
}

/** 预料之中的错误给模型看的错误码；意外的错误为 undefined。 */
export function expectedCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && Object.hasOwn(EXPECTED_ERROR_CODES, code)
    ? EXPECTED_ERROR_CODES[code]
    : undefined;
}
