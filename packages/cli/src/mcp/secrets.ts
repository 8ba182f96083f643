import { SECRET_ENV_NAME } from "@coding-agent/agent-core";
import type { McpServerConfig } from "./config.ts";

/**
 * The values a run gives its MCP servers under secret-looking names (`env` of a stdio
 * server, `headers` of an HTTP one: `GITHUB_TOKEN`, `Authorization`), as they are sent,
 * `${VAR}` expanded: the run's redactor masks them in everything it writes. A server may
 * echo its token in an error; the log and the reports must not keep it. A header's
 * credential after its scheme (`Bearer <token>`) counts on its own too.
 */
export function mcpSecretValues(servers: readonly McpServerConfig[]): string[] {
  const values: string[] = [];
  for (const server of servers) {
    const named = server.transport === "stdio" ? server.env : server.headers;
    for (const [name, value] of Object.entries(named)) {
      if (!SECRET_ENV_NAME.test(name)) continue;
      values.push(value);
      const credential = /^[A-Za-z]+[ \t]+(\S+)$/.exec(value)?.[1];
      if (credential !== undefined) values.push(credential);
    }
  }
  return values;
}
