import type { JsonSchema, Redactor, Tool, ToolRegistry, ToolSet } from "@coding-agent/agent-core";
import { type ApprovalMode, type Approver, createApprovalGate, denyAll } from "@coding-agent/tools";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type McpApprovalCall, mcpApprovalCall } from "./approval.ts";
import { bounded, callMcpTool, errorText, notRunning } from "./call-tool.ts";
import type { McpServerConfig } from "./config.ts";
import { descendantsOf, killAll } from "./process-tree.ts";
import {
  listedReadOnly,
  type McpRecord,
  type McpToolRecord,
  mcpToolName,
  mcpToolShape,
  serverOf,
  withDownServers,
} from "./tools.ts";

/** How long a server may take to start and list its tools. */
const START_TIMEOUT_MS = 30_000;
/** The most of a server's stderr kept to explain why it failed. */
const STDERR_TAIL_CHARS = 2_000;

/** The MCP servers of one run, started; `close` ends every one of them. */
export interface McpSession {
  /** The listed tools, as `mcp__<server>__<tool>`. */
  readonly tools: ToolSet;
  /** What the run's log keeps (for a replay). */
  readonly record: McpRecord;
  /**
   * The run's registry: `tools` as agent-core builds it, where a name under a configured
   * server that is not running (never started, or died) finds a tool answering `mcp_error`
   * instead of being an unknown tool (which would end the run).
   */
  registry(tools: ToolSet): ToolRegistry;
  /** The processes of the stdio servers still running. */
  pids(): number[];
  /** Ends every server (stdin closed, then SIGTERM, then SIGKILL) and waits for it. */
  close(): Promise<void>;
}

interface Running {
  readonly config: McpServerConfig;
  readonly client: Client;
  readonly transport: Transport;
  /** Why the server is no longer running; undefined while it is. */
  down: string | undefined;
}

/** What `startMcpServers` starts, and how its tools are gated. */
export interface StartMcpOptions {
  readonly servers: readonly McpServerConfig[];
  readonly workspace: string;
  readonly approval: ApprovalMode;
  readonly approver?: Approver;
  readonly allowTools: readonly string[];
  /** What the gate is asked about a call; `mcpApprovalCall` by default (lesson 37 passes the learner's). */
  readonly approvalCall?: McpApprovalCall;
  readonly redact: Redactor;
  /** One line to stderr. */
  readonly warn: (line: string) => void;
  readonly version: string;
  /** The run's signal: a Ctrl-C while servers start stops waiting for them. */
  readonly signal?: AbortSignal;
}

/** A server tool's `authorize` and `execute`: through the approval gate, to the server while it runs. */
function gatedCalls(
  server: Running,
  tool: string,
  gate: ReturnType<typeof createApprovalGate>,
  call: (input: object) => Parameters<ReturnType<typeof createApprovalGate>["admit"]>[1],
): Pick<Tool, "authorize" | "execute"> {
  return {
    authorize: (input, signal) => gate.authorize(input, call(input), signal),
    execute: async (input, signal) => {
      if (server.down !== undefined) return notRunning(server.config.name, server.down);
      const refused = await gate.admit(input, call(input), signal);
      if (refused !== undefined) return refused;
      return callMcpTool({
        client: server.client,
        server: server.config.name,
        down: () => server.down,
        tool,
        input,
        signal,
      });
    },
  };
}

/** Why a listed tool is not offered (its warning line), or undefined when it is. */
function unusableTool(
  server: string,
  listed: { readonly name: string; readonly inputSchema?: unknown },
  name: string | undefined,
  offered: Readonly<Record<string, Tool>>,
): string | undefined {
  const schema = listed.inputSchema as { type?: unknown } | undefined;
  if (typeof schema !== "object" || schema === null || schema.type !== "object")
    return `警告：MCP 服务器 ${server} 的工具 ${JSON.stringify(listed.name)} 的 inputSchema 不是对象的 JSON Schema，跳过\n`;
  if (name === undefined || name in offered)
    return `警告：MCP 服务器 ${server} 的工具 ${JSON.stringify(listed.name)} 的名字不能用作工具名，跳过\n`;
  return undefined;
}

/**
 * Starts the run's MCP servers (docs/contracts.md §7, lesson 37) through the official SDK client, all
 * at once: a stdio server is a process in the workspace (its environment: the SDK's safe
 * default variables plus its `env`, never the CLI's keys), a `url` server is streamable HTTP.
 * A server that fails to start or list its tools is one error line on stderr and the run
 * goes on without it. Every listed tool is offered as `mcp__<server>__<tool>` with the
 * server's JSON Schema, concurrent when the server lists it `readOnlyHint: true`
 * (`listedReadOnly`); calls go through the approval gate as `run_command`'s do: `auto`
 * allows them, `deny` refuses (the run ends `blocked`) unless `--allow-tool` names the tool,
 * `ask` asks. While servers run, an `exit` handler kills any left, so even a CLI that exits
 * without `close` leaves no server behind.
 */
export async function startMcpServers(options: StartMcpOptions): Promise<McpSession> {
  const { redact, warn } = options;
  const started = await Promise.all(options.servers.map((config) => start(config, options)));
  const running: Running[] = [];
  const failed: string[] = [];
  const records: McpToolRecord[] = [];
  const tools: Record<string, Tool> = {};
  const gate = createApprovalGate({
    approval: options.approval,
    approver: options.approver ?? denyAll,
    auto: "allow",
  });
  const allowed = new Set(options.allowTools);
  const approvalCall = options.approvalCall ?? mcpApprovalCall;
  for (const outcome of started) {
    if (!outcome.ok) {
      failed.push(outcome.config.name);
      warn(
        `错误：MCP 服务器 ${outcome.config.name}（${outcome.config.source}）启动失败：${redact(outcome.message)}\n`,
      );
      continue;
    }
    const server = outcome.server;
    running.push(server);
    for (const listed of outcome.tools) {
      const name = mcpToolName(server.config.name, listed.name);
      const unusable = unusableTool(server.config.name, listed, name, tools);
      if (name === undefined || unusable !== undefined) {
        warn(unusable ?? "");
        continue;
      }
      const record: McpToolRecord = {
        name,
        server: server.config.name,
        tool: listed.name,
        description: listed.description ?? "",
        inputSchema: listed.inputSchema as JsonSchema,
        readOnly: listedReadOnly(listed),
      };
      records.push(record);
      const gated = { name, server: server.config.name };
      const call = (input: object) => approvalCall(gated, input, options.allowTools);
      tools[name] = {
        ...mcpToolShape(record, warn),
        ...gatedCalls(server, listed.name, gate, call),
      };
    }
  }

  for (const name of allowed) {
    if (!(name in tools))
      warn(`警告：--allow-tool ${name} 不是这次运行的 MCP 工具（服务器没有列出它）\n`);
  }

  // What each server started, then the server: a child holding the server's stderr would
  // otherwise outlive the run and keep the CLI from exiting.
  const serverPids = () => running.flatMap((server) => pidOf(server) ?? []);
  const killServers = () => {
    for (const pid of serverPids()) killAll([...descendantsOf(pid), pid]);
  };
  if (running.length > 0) process.once("exit", killServers);

  const configured = options.servers.map((server) => server.name);
  return {
    tools,
    record: { servers: configured, failed, tools: records },
    registry: (all) => withDownServersOf(all, { configured, failed, running }),
    pids: () =>
      running.flatMap((server) => {
        const pid = server.down === undefined ? pidOf(server) : undefined;
        return pid === undefined ? [] : [pid];
      }),
    async close() {
      await Promise.all(
        running.map(async (server) => {
          server.down ??= "运行已结束";
          const pid = pidOf(server);
          // Found while the server lives: once it is gone its children are re-parented.
          const started = pid === undefined ? [] : descendantsOf(pid);
          await server.client.close().catch(() => {});
          killAll(started);
        }),
      );
      process.removeListener("exit", killServers);
    },
  };
}

/** The run's tools with those of a server that never started or went down answering why. */
function withDownServersOf(
  all: ToolSet,
  servers: {
    readonly configured: readonly string[];
    readonly failed: readonly string[];
    readonly running: readonly Running[];
  },
) {
  const { configured, failed, running } = servers;
  const downServer = (name: string): string | undefined => {
    const server = serverOf(name, configured);
    if (server === undefined) return undefined;
    if (failed.includes(server)) return server;
    const live = running.find((entry) => entry.config.name === server);
    return live?.down === undefined ? undefined : server;
  };
  return withDownServers(all, downServer, (_name, server) => ({
    execute: () =>
      notRunning(server, running.find((entry) => entry.config.name === server)?.down ?? "没有启动"),
  }));
}

type Started =
  | {
      readonly ok: true;
      readonly config: McpServerConfig;
      readonly server: Running;
      readonly tools: readonly {
        readonly name: string;
        readonly description?: string;
        readonly inputSchema: unknown;
        readonly annotations?: unknown;
      }[];
    }
  | { readonly ok: false; readonly config: McpServerConfig; readonly message: string };

async function start(
  config: McpServerConfig,
  options: {
    readonly workspace: string;
    readonly version: string;
    readonly signal?: AbortSignal;
  },
): Promise<Started> {
  let stderrTail = "";
  let transport: Transport;
  if (config.transport === "stdio") {
    const stdio = new StdioClientTransport({
      command: config.command,
      args: [...config.args],
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: options.workspace,
      stderr: "pipe",
    });
    // Read, or a chatty server would fill the pipe and stall; the tail explains a failure.
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    transport = stdio;
  } else {
    transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } },
    });
  }
  const client = new Client({ name: "coding-agent", version: options.version });
  const server: Running = { config, client, transport, down: undefined };
  client.onclose = () => {
    server.down ??= "连接已断开（服务器进程已退出）";
  };
  try {
    const waiting = {
      timeout: START_TIMEOUT_MS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    await client.connect(transport, waiting);
    const tools: {
      name: string;
      description?: string;
      inputSchema: unknown;
      annotations?: unknown;
    }[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, waiting);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { ok: true, config, server, tools };
  } catch (error) {
    server.down = "没有启动";
    await client.close().catch(() => {});
    const tail = lastLine(stderrTail);
    const message = `${errorText(error)}${tail === "" ? "" : `（stderr：${tail}）`}`;
    return { ok: false, config, message: oneLine(message) };
  }
}

function pidOf(server: Running): number | undefined {
  return server.transport instanceof StdioClientTransport
    ? (server.transport.pid ?? undefined)
    : undefined;
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "";
}

function oneLine(text: string): string {
  return bounded(text.replace(/\s*\n\s*/g, " "));
}
