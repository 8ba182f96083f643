import { toolError } from "@coding-agent/agent-core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** How long one call may take (the run's own tool timeout may end it sooner). */
const CALL_TIMEOUT_MS = 120_000;
/** The most of an MCP error message handed to the model (the loop bounds and redacts it again). */
const MESSAGE_CHARS = 4_000;

/**
 * One call of a server's tool, as the model gets it: the text content (joined), else the
 * `structuredContent`, else the content blocks with images and audio named by type and size
 * (base64 the model cannot read is not passed on). A result the tool marks `isError`, a
 * failed request (timeout, protocol error) and a server that went away are
 * `{ ok: false, error: { code: "mcp_error", message } }`; a cancel is thrown on, as every
 * tool's is.
 */
export async function callMcpTool(options: {
  readonly client: Client;
  /** The server's name. */
  readonly server: string;
  /** Why the server is not running; undefined while it is. */
  readonly down: () => string | undefined;
  readonly tool: string;
  readonly input: Record<string, unknown>;
  readonly signal: AbortSignal;
}): Promise<unknown> {
  const { client, server, tool, input, signal } = options;
  try {
    const result = await client.callTool({ name: tool, arguments: input }, undefined, {
      signal,
      timeout: CALL_TIMEOUT_MS,
    });
    const content = Array.isArray(result.content) ? result.content : [];
    if (result.isError === true) {
      return toolError(
        "mcp_error",
        bounded(`MCP 工具 ${tool} 报错：${textOf(content) || "（没有说明）"}`),
      );
    }
    if (result.structuredContent !== undefined) return result.structuredContent;
    if (content.every((block) => block.type === "text")) return textOf(content);
    // Images and audio are named, not passed on as base64 the model cannot read.
    return {
      content: content.map((block) =>
        block.type === "image" || block.type === "audio"
          ? {
              type: block.type,
              mimeType: block.mimeType,
              bytes: Math.floor((block.data.length * 3) / 4),
            }
          : block,
      ),
    };
  } catch (error) {
    if (signal.aborted) throw error;
    const down = options.down();
    if (down !== undefined) return notRunning(server, down);
    return toolError(
      "mcp_error",
      bounded(`MCP 服务器 ${server} 调用 ${tool} 失败：${errorText(error)}`),
    );
  }
}

export function notRunning(server: string, why: string) {
  return toolError("mcp_error", `MCP 服务器 ${server} 没有在运行（${why}），它的工具不能调用`);
}

function textOf(content: readonly { type: string; text?: unknown }[]): string {
  return content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function bounded(text: string): string {
  return text.length <= MESSAGE_CHARS ? text : `${text.slice(0, MESSAGE_CHARS)}…（已截断）`;
}
