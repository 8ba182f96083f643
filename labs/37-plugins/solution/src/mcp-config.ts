import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import type { McpApprovalCall, McpServerConfig, McpServersParse } from "@coding-agent/cli";
import { z } from "zod";

// 服务器名：工具名是 mcp__<服务器>__<工具>，服务器名里的 __ 会让这个名字有两种读法。
// #region exercise
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
// #endregion exercise

/** 一项配置本身的问题（中文）：有不认识的字段，或者它根本不是对象。 */
const entryError = (issue: { code?: string; keys?: readonly string[] }) =>
  issue.code === "unrecognized_keys"
    ? `不认识的字段 ${(issue.keys ?? []).join("、")}（stdio 服务器：command、args、env；HTTP 服务器：url、headers；都可以写 type）`
    : issue.code === "invalid_type"
      ? "需要对象：{ command, args?, env? } 或 { url, headers? }"
      : undefined;

// 一个服务器的配置：没有 url 的是 stdio（运行时启动的进程），有 url 的是 streamable HTTP。
// #region exercise
const StdioServerSchema = z.strictObject(
  {
    type: z.literal("stdio", "stdio 服务器的 type 只能是 stdio").optional(),
    command: z
      .string("需要要启动的程序（非空字符串）")
      .trim()
      .min(1, "需要要启动的程序（非空字符串）"),
    args: z.array(z.string("参数需要是字符串"), "args 需要是字符串数组").default([]),
    env: z
      .record(z.string(), z.string("环境变量的值需要是字符串"), "env 需要是对象（变量名 → 值）")
      .default({}),
  },
  { error: entryError },
);

const HttpServerSchema = z.strictObject(
  {
    type: z.enum(["http", "streamable-http"], "url 服务器的 type 只能是 http").optional(),
    url: z
      .url("需要 http:// 或 https:// 地址")
      .refine((url) => /^https?:\/\//.test(url), "需要 http:// 或 https:// 地址"),
    headers: z
      .record(z.string(), z.string("请求头的值需要是字符串"), "headers 需要是对象（名字 → 值）")
      .default({}),
  },
  { error: entryError },
);
// #endregion exercise

/**
 * 一个设置文件或 --mcp-config 文件里的 mcpServers（docs/contracts.md §7）：
 * `{ "<名字>": { "command", "args"?, "env"? } | { "url" } }`。
 * 全部合格才回答 { ok: true, servers }；否则 { ok: false, details }，
 * 每个问题都写出它的位置（mcpServers.<名字>.<字段>: 原因），用“；”隔开。
 */
export function parseMcpServers(value: unknown, source: string): McpServersParse {
  if (value === undefined) return { ok: true, servers: [] };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, details: "mcpServers: 需要对象（服务器名 → 配置）" };
  }
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(value)) {
    const at = ["mcpServers", name];
    if (!SERVER_NAME.test(name)) {
      problems.push(
        `${at.join(".")}: 服务器名只能含字母、数字、- 和单个 _（工具名是 mcp__<服务器>__<工具>）`,
      );
      continue;
    }
    const isHttp = typeof entry === "object" && entry !== null && "url" in entry;
    const checked = (isHttp ? HttpServerSchema : StdioServerSchema).safeParse(entry);
    if (!checked.success) {
      const issues = checked.error.issues.map((issue) => ({
        ...issue,
        path: [...at, ...issue.path],
      }));
      problems.push(formatValueIssues(toValueIssues(issues), "；"));
      continue;
    }
    const data = checked.data;
    servers.push(
      "url" in data
        ? { name, transport: "http", url: data.url, headers: data.headers, source }
        : {
            name,
            transport: "stdio",
            command: data.command,
            args: data.args,
            env: data.env,
            source,
          },
    );
  }
  if (problems.length > 0) return { ok: false, details: problems.join("；") };
  return { ok: true, servers };
}

/**
 * 批准门对一次 MCP 工具调用要问什么（docs/contracts.md §7）：
 * - --allow-tool 恰好写出了这个工具的全名：undefined，不用问，直接调用；
 * - 否则：交给批准门的请求，由 --approval 决定（auto 放行、deny 让运行以 blocked 结束、ask 询问）。
 */
export const mcpApprovalCall: McpApprovalCall = (tool, input, allowTools) => {
  const request = {
    request: {
      tool: tool.name,
      argv: [tool.name, JSON.stringify(input).slice(0, 4_000)],
      program: tool.name,
      reason: `调用 MCP 工具 ${tool.name}（服务器 ${tool.server}）需要批准（--approval，或用 --allow-tool ${tool.name} 允许）`,
    },
    undone: `${tool.name} 没有调用`,
  };
  // #region exercise
  if (allowTools.includes(tool.name)) return undefined;
  return request;
  // #endregion exercise
};
