import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type RunResult, runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { type McpServerConfig, startMcpServers } from "@coding-agent/cli";
import { mcpApprovalCall, parseMcpServers } from "@lab";
import { describe, expect, it } from "vitest";

/** The server a test gets, as the runtime gets it from your parser. */
function parsed(value: unknown): readonly McpServerConfig[] {
  const result = parseMcpServers(value, "mcp.json");
  if (!result.ok) throw new Error(`配置被拒绝：${result.details}`);
  return result.servers;
}

/** The problems your parser reports for `value` ("" when it accepts it). */
function refused(value: unknown): string {
  const result = parseMcpServers(value, "mcp.json");
  return result.ok ? "" : result.details;
}

describe("parseMcpServers", () => {
  it("reads stdio and url servers into the runtime's configs, with their defaults", () => {
    expect(
      parsed({
        files: { command: "node", args: ["server.js"], env: { ROOT: "." } },
        search: { url: "https://mcp.example.com/mcp", headers: { "x-team": "a" } },
        bare: { command: "my-server" },
        typed: { type: "stdio", command: "x" },
      }),
    ).toEqual([
      {
        name: "files",
        transport: "stdio",
        command: "node",
        args: ["server.js"],
        env: { ROOT: "." },
        source: "mcp.json",
      },
      {
        name: "search",
        transport: "http",
        url: "https://mcp.example.com/mcp",
        headers: { "x-team": "a" },
        source: "mcp.json",
      },
      {
        name: "bare",
        transport: "stdio",
        command: "my-server",
        args: [],
        env: {},
        source: "mcp.json",
      },
      { name: "typed", transport: "stdio", command: "x", args: [], env: {}, source: "mcp.json" },
    ]);
    expect(parseMcpServers(undefined, "settings.json"), "没有 mcpServers 就是没有服务器").toEqual({
      ok: true,
      servers: [],
    });
  });

  it("accepts letters, digits, - and single _ in a server name", () => {
    const names = ["github", "my_server", "git-hub", "a_b_c", "S3", "x-1_y"];
    const servers = parsed(Object.fromEntries(names.map((name) => [name, { command: "x" }])));
    expect(servers.map((server) => server.name)).toEqual(names);
  });

  it("refuses a server name with __, or _ at either end: mcp__a__b__c would have two readings", () => {
    for (const name of ["a__b", "__a", "a__", "_a", "a_", "my server", "a.b", "a/b", "名字"]) {
      expect(refused({ [name]: { command: "x" } }), `服务器名 ${JSON.stringify(name)}`).toContain(
        `mcpServers.${name}: 服务器名`,
      );
    }
  });

  it("refuses a key it does not know, at its path: a typo is not silently dropped", () => {
    const typo = refused({ fs: { command: "node", arg: ["server.js"] } });
    expect(typo, "拼错的 args").toContain("mcpServers.fs");
    expect(typo).toContain("arg");
    expect(
      refused({ web: { url: "https://a.example/mcp", header: { a: "b" } } }),
      "拼错的 headers",
    ).toContain("mcpServers.web");
    expect(refused({ s: { command: "x", enabled: true } }), "别的工具的字段").toContain(
      "mcpServers.s",
    );
  });

  it("refuses a value of the wrong type instead of turning it into a string", () => {
    expect(refused({ s: { command: "x", args: ["--port", 8080] } }), "数字参数").toContain(
      "mcpServers.s.args[1]",
    );
    expect(refused({ s: { command: "x", env: { DEBUG: true } } }), "布尔环境变量").toContain(
      "mcpServers.s.env.DEBUG",
    );
    expect(
      refused({ s: { url: "http://127.0.0.1:9/mcp", headers: { n: 1 } } }),
      "数字请求头",
    ).toContain("mcpServers.s.headers.n");
    expect(refused({ s: { command: "x", args: "--port 8080" } }), "字符串当数组").toContain(
      "mcpServers.s.args",
    );
  });

  it("refuses an empty command, a url that is not http(s), and a type that disagrees with the entry", () => {
    expect(refused({ s: { command: "  " } }), "空的 command").toContain("mcpServers.s.command");
    expect(refused({ s: { url: "ftp://example.com/mcp" } }), "ftp 地址").toContain(
      "mcpServers.s.url",
    );
    expect(refused({ s: { url: "file:///etc/passwd" } }), "file 地址").toContain(
      "mcpServers.s.url",
    );
    expect(
      refused({ s: { type: "sse", url: "http://127.0.0.1:9/sse" } }),
      "SSE 不是 §7 要的",
    ).toContain("mcpServers.s.type");
    expect(refused({ s: { type: "http", command: "x" } }), "stdio 项写了 http").toContain(
      "mcpServers.s.type",
    );
  });

  it("names every bad server in one answer", () => {
    const details = refused({ ok: { command: "x" }, x: { command: 3 }, y: { url: 5 } });
    expect(details).toContain("mcpServers.x.command");
    expect(details).toContain("mcpServers.y.url");
    expect(refused([]), "数组不是服务器表").toContain("mcpServers");
    expect(refused("everything"), "字符串不是服务器表").toContain("mcpServers");
  });
});

const echo = { name: "mcp__everything__echo", server: "everything" };

describe("mcpApprovalCall", () => {
  it("asks the gate about a call --allow-tool does not name, showing the tool and its input", () => {
    const call = mcpApprovalCall(echo, { message: "你好" }, []);
    expect(call, "没有 --allow-tool 就要问批准门").toBeDefined();
    expect(call?.request.tool).toBe("mcp__everything__echo");
    expect(call?.request.program, "为整次运行放行时按工具记住").toBe("mcp__everything__echo");
    expect(call?.request.argv.join(" ")).toContain("你好");
    expect(call?.request.reason).toContain("--allow-tool mcp__everything__echo");
    expect(call?.undone).toContain("mcp__everything__echo");
  });

  it("needs no approval for the tool --allow-tool names", () => {
    expect(mcpApprovalCall(echo, {}, ["mcp__other__x", "mcp__everything__echo"])).toBeUndefined();
  });

  it("matches --allow-tool by the whole name: not a prefix, not a longer name, not another server's", () => {
    const sum = { name: "mcp__everything__get-sum", server: "everything" };
    for (const allowTools of [
      ["mcp__everything__get"],
      ["mcp__everything__"],
      ["mcp__everything__get-sum-v2"],
      ["mcp__everything__GET-SUM"],
      ["mcp__every__get-sum"],
      ["*"],
      [""],
    ]) {
      expect(mcpApprovalCall(sum, {}, allowTools), `--allow-tool ${allowTools[0]}`).toBeDefined();
    }
  });
});

/**
 * server-everything, the reference MCP server, run by node straight from its package (the
 * capstone's own MCP tests use it: it is found beside @coding-agent/cli).
 */
const EVERYTHING = join(
  dirname(
    createRequire(createRequire(import.meta.url).resolve("@coding-agent/cli/package.json")).resolve(
      "@modelcontextprotocol/server-everything/package.json",
    ),
  ),
  "dist",
  "index.js",
);

/**
 * Starts the servers your parser reads from `config` through the runtime's
 * startMcpServers, gated by your mcpApprovalCall, and runs the scripted calls.
 */
async function runWithServers(
  config: unknown,
  approval: "auto" | "deny",
  allowTools: readonly string[],
  calls: readonly { tool: string; input: Record<string, unknown> }[],
): Promise<{ result: RunResult; warnings: string[] }> {
  const warnings: string[] = [];
  const session = await startMcpServers({
    servers: parsed(config),
    workspace: tmpdir(),
    approval,
    allowTools,
    approvalCall: mcpApprovalCall,
    redact: (text) => text,
    warn: (line) => warnings.push(line),
    version: "0.0.0",
  });
  try {
    const model = createScriptedProvider([
      ...calls.map((call) => ({ action: { type: "tool_call" as const, ...call } })),
      { action: { type: "finish", summary: "好了" } },
    ]);
    const result = await runAgent("用 MCP 工具", model, session.registry(session.tools), {
      maxSteps: 10,
    });
    return { result, warnings };
  } finally {
    await session.close();
  }
}

const everything = { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } };
const toolMessages = (result: RunResult) => result.messages.filter((m) => m.role === "tool");

describe("inside the runtime, with a real MCP server (server-everything)", {
  timeout: 15_000,
}, () => {
  it("--approval auto runs a configured server's tools", async () => {
    const { result } = await runWithServers(
      everything,
      "auto",
      [],
      [{ tool: "mcp__everything__get-sum", input: { a: 2, b: 40 } }],
    );
    expect(result.status).toBe("completed");
    expect(toolMessages(result)[0]).toMatchObject({ ok: true });
    expect(JSON.stringify(toolMessages(result)[0])).toContain("42");
  });

  it("--approval deny blocks an MCP call: the run ends blocked, the tool never called", async () => {
    const { result } = await runWithServers(
      everything,
      "deny",
      [],
      [{ tool: "mcp__everything__echo", input: { message: "不该被送出" } }],
    );
    expect(result.status, "deny 下 MCP 工具也要过批准门").toBe("blocked");
    expect(result.reason).toContain("mcp__everything__echo");
    expect(result.toolCalls).toBe(0);
    expect(toolMessages(result), "模型收到的是拒绝，不是工具的回答").toMatchObject([
      { ok: false, error: { code: "permission_denied" } },
    ]);
  });

  it("--allow-tool lets exactly its tool run under deny; a tool its name is a prefix of stays blocked", async () => {
    const { result } = await runWithServers(
      everything,
      "deny",
      ["mcp__everything__echo", "mcp__everything__get"],
      [
        { tool: "mcp__everything__echo", input: { message: "可以" } },
        { tool: "mcp__everything__get-sum", input: { a: 1, b: 1 } },
      ],
    );
    expect(toolMessages(result)[0], "被点名的工具照常调用").toMatchObject({ ok: true });
    expect(JSON.stringify(toolMessages(result)[0])).toContain("可以");
    expect(result.status, "--allow-tool mcp__everything__get 不放行 get-sum").toBe("blocked");
    expect(result.reason).toContain("mcp__everything__get-sum");
    expect(result.toolCalls).toBe(1);
    expect(toolMessages(result)[1]).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
  });
});
