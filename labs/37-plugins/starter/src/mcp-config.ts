import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import type { McpApprovalCall, McpServerConfig, McpServersParse } from "@coding-agent/cli";
import { z } from "zod";

// 服务器名：工具名是 mcp__<服务器>__<工具>，服务器名里的 __ 会让这个名字有两种读法。
// #region exercise
// TODO(lab-37): 现在任何非空的名字都收下，a__b 也行：mcp__a__b__c 既可能是 a 的 b__c，也可能是
//   a__b 的 c。改成：只能含字母、数字、-，以及不在开头、结尾、也不连着出现的单个 _。
const SERVER_NAME = /^.+$/;
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
// TODO(lab-37): 现在的 schema 对不认识的键一声不吭地丢掉（"arg" 拼错了，参数就没了），
//   把数字、布尔值悄悄转成字符串，空的 command、ftp:// 地址、不相符的 type 也都收下。改成：
//   不认识的键是错误；args、env、headers 的值必须本来就是字符串；command 非空；
//   url 只能是 http:// 或 https://；type 可以不写，写了就要和这一项相符（stdio；http 或 streamable-http）。
//   每条错误用中文写明原因。
const StdioServerSchema = z.object(
  {
    type: z.string().optional(),
    command: z.string(),
    args: z.array(z.coerce.string()).default([]),
    env: z.record(z.string(), z.coerce.string()).default({}),
  },
  { error: entryError },
);

const HttpServerSchema = z.object(
  {
    type: z.string().optional(),
    url: z.string(),
    headers: z.record(z.string(), z.coerce.string()).default({}),
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
  // TODO(lab-37): 现在 --allow-tool 形同虚设、批准门也被绕过：每次调用都回答“不用问”，
  //   --approval deny 拦不住任何 MCP 工具。改成：只有 allowTools 里恰好有 tool.name 时才不用问，
  //   其余都把 request 交给批准门。
  void allowTools;
  void request;
  return undefined;
  // #endregion exercise
};
