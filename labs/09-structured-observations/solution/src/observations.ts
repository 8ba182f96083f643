import {
  type Message,
  type Tool,
  type ToolError,
  type ToolErrorResult,
  toolError,
} from "@coding-agent/agent-core";

/**
 * One tool result as the model reads it: which call (`callId`) of which tool,
 * and either the value (as observation text) or the error.
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
 * The observations of a run, in the order of the calls. Each tool message is
 * paired with its call by `callId`; a call left without a result is a bug of the
 * runtime, reported by throwing (every API rejects such a history).
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

/** Node error codes that are expected outcomes of a file tool, and the codes the model sees. */
export const EXPECTED_ERROR_CODES: Readonly<Record<string, string>> = {
  ENOENT: "not_found",
  EISDIR: "is_directory",
  ENOTDIR: "not_a_directory",
  EACCES: "permission_denied",
};

/**
 * The same tool, with its expected failures turned into results: a missing file
 * (`ENOENT`) comes back to the model as `{ ok: false, error: { code: "not_found",
 * message } }`, so it can try another path, and the run goes on. Anything else the
 * tool throws is unexpected and still ends the run as `failed / tool_error`.
 */
export function withExpectedErrors(tool: Tool): Tool {
  return {
    ...tool,
    async execute(input, signal) {
      // #region exercise
      // 解答：预期内的错误（文件不存在等）变成结果写回给模型；预期外的错误照旧抛出，让运行失败。
      try {
        return await tool.execute(input, signal);
      } catch (error) {
        const expected = toExpectedError(error);
        if (expected === undefined) throw error;
        return expected;
      }
      // #endregion exercise
    },
  };
}

/**
 * The result a tool returns for an expected error (`{ ok: false, error: { code,
 * message } }`), or undefined when the error is unexpected.
 */
export function toExpectedError(error: unknown): ToolErrorResult | undefined {
  const code = expectedCode(error);
  if (code === undefined) return undefined;
  return toolError(code, error instanceof Error ? error.message : String(error));
}

/** The model-facing code of an expected error, or undefined for an unexpected one. */
export function expectedCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && Object.hasOwn(EXPECTED_ERROR_CODES, code)
    ? EXPECTED_ERROR_CODES[code]
    : undefined;
}
