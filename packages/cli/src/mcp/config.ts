import { readFile } from "node:fs/promises";
import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import { z } from "zod";

/**
 * MCP server definitions (docs/contracts.md §7, lesson 37) in the `.mcp.json` shape:
 * `{ "mcpServers": { "<name>": { "command", "args"?, "env"? } | { "url" } } }`, read from the
 * settings files (beside `hooks`) and from `--mcp-config <file>`. An entry with `url` is a
 * streamable HTTP server; any other entry is a stdio server (a process the run starts).
 * `type` is accepted as Claude Code writes it (`stdio`, `http`) and must agree with the entry.
 */

/** A server's name: letters, digits, `-` and single `_` (the tool name `mcp__<server>__<tool>` stays unambiguous). */
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** The entry's own problems in Chinese: a key it does not know, or an entry that is not an object. */
const entryError = (issue: { code?: string; keys?: readonly string[] }) =>
  issue.code === "unrecognized_keys"
    ? `不认识的字段 ${(issue.keys ?? []).join("、")}（stdio 服务器：command、args、env；HTTP 服务器：url、headers；都可以写 type）`
    : issue.code === "invalid_type"
      ? "需要对象：{ command, args?, env? } 或 { url, headers? }"
      : undefined;

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
    // A `${VAR}` in it is checked once expanded, when the run starts (see `expandServers`).
    url: z
      .string("需要 http:// 或 https:// 地址")
      .refine((url) => url.includes("${") || isHttpUrl(url), "需要 http:// 或 https:// 地址"),
    headers: z
      .record(z.string(), z.string("请求头的值需要是字符串"), "headers 需要是对象（名字 → 值）")
      .default({}),
  },
  { error: entryError },
);

/** True for an absolute http:// or https:// URL. */
export function isHttpUrl(text: string): boolean {
  return /^https?:\/\//.test(text) && URL.canParse(text);
}

/** One configured server, with the file that defined it (named in every message about it). */
export type McpServerConfig =
  | {
      readonly name: string;
      readonly transport: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly source: string;
    }
  | {
      readonly name: string;
      readonly transport: "http";
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly source: string;
    };

export type McpServersParse =
  | { readonly ok: true; readonly servers: readonly McpServerConfig[] }
  | { readonly ok: false; readonly details: string };

/**
 * The `mcpServers` of one settings or config document (`undefined` when it has none), every
 * problem at its path (`mcpServers.<name>.command: …`).
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

/** `--mcp-config <file>`: a `.mcp.json` document; a bad file is a usage error naming it. */
export async function loadMcpConfigFile(
  file: string,
): Promise<
  | { readonly ok: true; readonly servers: readonly McpServerConfig[] }
  | { readonly ok: false; readonly message: string }
> {
  const text = await readFile(file, "utf8").catch((error: Error) => error);
  if (text instanceof Error) {
    return { ok: false, message: `MCP 配置文件 ${file} 读不了：${text.message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      message: `MCP 配置文件 ${file} 不是有效的 JSON：${(error as Error).message}`,
    };
  }
  if (typeof value !== "object" || value === null || !("mcpServers" in value)) {
    return {
      ok: false,
      message: `MCP 配置文件 ${file} 无效：mcpServers: 缺少（格式：{ "mcpServers": { "<名字>": { "command", "args", "env" } 或 { "url" } } }）`,
    };
  }
  const parsed = parseMcpServers(value.mcpServers, file);
  if (!parsed.ok) return { ok: false, message: `MCP 配置文件 ${file} 无效：${parsed.details}` };
  return parsed;
}

/** The servers of a run: later sources replace earlier ones of the same name. */
export function mergeServers(
  ...sources: readonly (readonly McpServerConfig[])[]
): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const servers of sources) for (const server of servers) byName.set(server.name, server);
  return [...byName.values()];
}
