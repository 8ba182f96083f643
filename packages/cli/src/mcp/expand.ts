import { isHttpUrl, type McpServerConfig } from "./config.ts";

/** `${VAR}` or `${VAR:-default}`, as `.mcp.json` writes them (a bare `$VAR` is left alone). */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type ExpandedServers =
  | { readonly ok: true; readonly servers: readonly McpServerConfig[] }
  | { readonly ok: false; readonly message: string };

/**
 * The servers with every `${VAR}` in `command`, `args`, `env`, `url` and `headers` replaced by
 * the CLI's environment (`${VAR:-default}`: the default when VAR is unset or empty), at start
 * only: the log and the messages keep the file's text. A variable that is unset and has no
 * default is an error naming the server, the field and the variable, before anything starts.
 */
export function expandServers(
  servers: readonly McpServerConfig[],
  env: Readonly<Record<string, string | undefined>>,
): ExpandedServers {
  const missing: string[] = [];
  const expanded = servers.map((server) => {
    const expand = (text: string, field: string) =>
      text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
        const value = env[name];
        if (value !== undefined && value !== "") return value;
        if (fallback !== undefined) return fallback;
        if (value === "") return value;
        missing.push(
          `${server.source} 的 mcpServers.${server.name}.${field} 用到的环境变量 ${name} 没有设置（设置它，或写成 \${${name}:-默认值}）`,
        );
        return "";
      });
    const each = (values: Readonly<Record<string, string>>, field: string) =>
      Object.fromEntries(
        Object.entries(values).map(([key, value]) => [key, expand(value, `${field}.${key}`)]),
      );
    return server.transport === "stdio"
      ? {
          ...server,
          command: expand(server.command, "command"),
          args: server.args.map((arg, index) => expand(arg, `args[${index}]`)),
          env: each(server.env, "env"),
        }
      : { ...server, url: expand(server.url, "url"), headers: each(server.headers, "headers") };
  });
  for (const server of expanded) {
    if (server.transport === "http" && !missing.length && !isHttpUrl(server.url)) {
      missing.push(
        `${server.source} 的 mcpServers.${server.name}.url 展开后不是 http:// 或 https:// 地址`,
      );
    }
  }
  if (missing.length > 0) {
    return { ok: false, message: `MCP 配置无效：${missing.join("；")}` };
  }
  return { ok: true, servers: expanded };
}
