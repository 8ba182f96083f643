/**
 * Plugins = MCP (docs/contracts.md §7, lesson 37), against a real, independently written server:
 * `@modelcontextprotocol/server-everything`, run through `node` (never npx, never the
 * network). Each stdio server is started through `sh -c 'echo $$ >> <pids>; exec node …'`,
 * so the test knows every process a run started and can prove, through /proc, that none
 * is left when the run ends however it ends.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { createRedactor, createToolRegistry } from "@coding-agent/agent-core";
import type { Approver } from "@coding-agent/tools";
import { describe, expect, it, vi } from "vitest";
import { WORKSPACE_SETTINGS } from "../src/hooks/settings.ts";
import { startMcpServers } from "../src/mcp/servers.ts";
import { isRunning } from "./support/process-state.ts";
import { call, captureCli, finish, runScripted } from "./support/run-cli.ts";
import { NO_FINISH_GATE, runArgv, writeScript } from "./support/scripted-run.ts";
import { EVERYTHING } from "./support/server-everything.ts";
import { spawnBin } from "./support/spawn-bin.ts";
import { useWorkspaceAndHome } from "./support/workspace-home.ts";

const SECRET = "tok-mcp-secret-9f8e7d6c5b4a";
/** `${NAME}` as `.mcp.json` writes a variable reference. */
const ref = (name: string) => `\${${name}}`;

let base: string;
let ws: string;
let home: string;
let pidFile: string;
useWorkspaceAndHome("coding-agent-mcp-", (made) => {
  ({ base, workspace: ws, home } = made);
  pidFile = join(base, "pids");
});

/** A stdio server entry for server-everything that records its pid. */
const everything = (env: Record<string, string> = {}) => ({
  command: "sh",
  args: ["-c", `echo $$ >> '${pidFile}'; exec '${process.execPath}' '${EVERYTHING}' stdio`],
  env,
});

const pids = () =>
  existsSync(pidFile)
    ? readFileSync(pidFile, "utf8").trim().split("\n").filter(Boolean).map(Number)
    : [];

async function mcpConfig(servers: Record<string, unknown>, name = "mcp.json") {
  const file = join(base, name);
  await writeFile(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

async function run(turns: unknown[], flags: string[], env: Record<string, string> = {}) {
  const script = await writeScript(base, turns);
  return captureCli(runArgv("用 MCP 工具", script, ws, ...NO_FINISH_GATE, ...flags), {
    CODING_AGENT_HOME: home,
    PATH: process.env.PATH,
    ...env,
  });
}

/** The tool messages of a run, in call order: `{ ok, content }` or `{ ok, error }`. */
function toolResults(result: { messages: Array<Record<string, unknown>> }) {
  return result.messages
    .filter((message) => message.role === "tool")
    .map((message) =>
      message.ok
        ? { ok: true, content: message.content as string }
        : { ok: false, error: message.error as { code: string; message: string } },
    );
}

async function runFile(runDir: string, file: string) {
  return readFile(join(runDir, file), "utf8");
}

describe("a configured stdio server", () => {
  it("offers its tools as mcp__<server>__<tool> with its JSON schemas, and answers calls through the fake model", async () => {
    const config = await mcpConfig({ everything: everything() });
    const { code, result, stderr } = await run(
      [
        call("mcp__everything__echo", { message: "你好 MCP" }),
        call("mcp__everything__get-sum", { a: 2, b: 40 }),
        call("mcp__everything__get-sum", { a: "2" }),
        finish,
      ],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(stderr).not.toContain("启动失败");
    expect(code).toBe(0);
    const [echo, sum, bad] = result.messages.filter((m: { role: string }) => m.role === "tool");
    expect(echo).toMatchObject({ ok: true, content: "Echo: 你好 MCP" });
    expect(sum).toMatchObject({ ok: true, content: "The sum of 2 and 40 is 42." });
    // Checked against the server's own schema before anything is sent.
    expect(bad.ok).toBe(false);
    expect(bad.error.code).toBe("invalid_input");
    expect(bad.error.message).toMatch(/'b'/);
    // What the servers listed is in the log (a replay rebuilds the tools from it).
    const started = JSON.parse((await runFile(result.runDir, "state.jsonl")).split("\n")[0] ?? "");
    const listed = started.options.mcp.tools.find(
      (t: { name: string }) => t.name === "mcp__everything__get-sum",
    );
    expect(listed.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    // The server ended with the run.
    expect(pids()).toHaveLength(1);
    expect(pids().filter(isRunning)).toEqual([]);
  });

  it("hands the model the server's schema and description as given, and pids() names its running process", async () => {
    const session = await startMcpServers({
      servers: [
        {
          name: "everything",
          transport: "stdio",
          source: "test",
          ...everything(),
          args: everything().args,
        },
      ],
      workspace: ws,
      approval: "auto",
      allowTools: [],
      redact: (text) => text,
      warn: () => {},
      version: "0.0.0",
    });
    try {
      const registry = createToolRegistry(session.tools);
      const sum = registry.descriptions.find((d) => d.name === "mcp__everything__get-sum");
      expect(sum?.inputSchema).toMatchObject({
        required: ["a", "b"],
        properties: { a: { type: "number" } },
      });
      expect(sum?.description).toBe("Returns the sum of two numbers");
      expect(session.pids()).toHaveLength(1);
      const [pid] = session.pids();
      expect(isRunning(pid as number)).toBe(true);
    } finally {
      await session.close();
    }
    expect(pids().filter(isRunning)).toEqual([]);
  });
});

describe("a server that is not running", () => {
  it("that never started is one error line on stderr; its tools answer mcp_error and the run goes on", async () => {
    const config = await mcpConfig({
      broken: { command: join(base, "no-such-server") },
      everything: everything(),
    });
    const { code, result, stderr } = await run(
      [
        call("mcp__broken__anything", {}),
        call("mcp__everything__echo", { message: "还在" }),
        finish,
      ],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(code).toBe(0);
    const lines = stderr.split("\n").filter((line) => line.includes("broken"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^错误：MCP 服务器 broken.*启动失败：.*ENOENT/);
    const [dead, echo] = toolResults(result);
    expect(dead).toMatchObject({ ok: false, error: { code: "mcp_error" } });
    expect(echo?.ok).toBe(true);
    expect(result.status).toBe("completed");
  });

  it("that died mid-run answers mcp_error for every one of its tools, and the run goes on", async () => {
    const config = await mcpConfig({ everything: everything() });
    const { code, result } = await run(
      [
        call("mcp__everything__echo", { message: "一" }),
        call("run_command", { argv: ["sh", "-c", `kill -9 $(cat '${pidFile}')`] }),
        call("mcp__everything__echo", { message: "二" }),
        call("mcp__everything__get-sum", { a: 1, b: 2 }),
        call("echo", { text: "继续" }),
        finish,
      ],
      ["--mcp-config", config, "--approval", "auto", "--allow-command", "sh", "--sandbox", "none"],
    );
    expect(code).toBe(0);
    const [first, killed, second, third, builtin] = toolResults(result);
    expect(first?.ok).toBe(true);
    expect(killed?.ok).toBe(true);
    expect(JSON.parse(String(killed?.content))).toMatchObject({ exitCode: 0 });
    expect(second).toMatchObject({ ok: false, error: { code: "mcp_error" } });
    expect(third).toMatchObject({ ok: false, error: { code: "mcp_error" } });
    expect(builtin?.ok).toBe(true);
    expect(pids().filter(isRunning)).toEqual([]);
  });
});

describe("workspace trust", () => {
  const markerServer = (marker: string) => ({
    mcpServers: { pwn: { command: "sh", args: ["-c", `touch '${marker}'`] } },
  });

  it("never starts a server an untrusted workspace defines (its marker never appears), one warning; a user-level server runs", async () => {
    const marker = join(base, "pwned");
    await mkdir(join(ws, ".coding-agent"));
    await writeFile(join(ws, WORKSPACE_SETTINGS), JSON.stringify(markerServer(marker)));
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ mcpServers: { everything: everything() } }),
    );
    const { code, result, stderr } = await run(
      [call("mcp__everything__echo", { message: "用户的" }), call("mcp__pwn__x", {}), finish],
      ["--approval", "auto"],
    );
    expect(existsSync(marker)).toBe(false);
    expect(stderr.split("未被信任").length - 1).toBe(1);
    expect(stderr).toContain("MCP 服务器不会运行");
    // Not configured for this run: an unknown tool ends the run, nothing ran.
    expect(code).toBe(1);
    expect(result.code).toBe("unknown_tool");
    expect(toolResults(result)[0]).toMatchObject({ ok: true, content: "Echo: 用户的" });
    // The user's server started (and ended), the workspace's never did.
    expect(pids()).toHaveLength(1);
    expect(pids().filter(isRunning)).toEqual([]);
    // Trusted, the same file does start it (so the check above can fail).
    const trusted = await run(
      [call("mcp__everything__echo", { message: "用户的" }), finish],
      ["--approval", "auto", "--trust-workspace"],
    );
    expect(existsSync(marker)).toBe(true);
    expect(trusted.code).toBe(0);
    expect(toolResults(trusted.result)[0]).toMatchObject({ ok: true });
    expect(trusted.stderr).toMatch(/MCP 服务器 pwn.*启动失败/);
  });
});

describe("hooks", () => {
  it("see MCP calls by their full name: a PreToolUse veto on mcp__.* answers hook_denied, other tools run", async () => {
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({
        mcpServers: { everything: everything() },
        hooks: {
          PreToolUse: [{ matcher: "mcp__everything__get-.*", command: "echo 不许 >&2; exit 2" }],
        },
      }),
    );
    const { code, result } = await run(
      [
        call("mcp__everything__get-sum", { a: 1, b: 2 }),
        call("mcp__everything__echo", { message: "可以" }),
        finish,
      ],
      ["--approval", "auto"],
    );
    expect(code).toBe(0);
    const [vetoed, echo] = toolResults(result);
    expect(vetoed).toMatchObject({ ok: false, error: { code: "hook_denied" } });
    expect(echo).toMatchObject({ ok: true, content: "Echo: 可以" });
  });
});

describe("approval", () => {
  it("--approval deny blocks an MCP call unless --allow-tool names it", async () => {
    const config = await mcpConfig({ everything: everything() });
    const turns = [call("mcp__everything__echo", { message: "hi" }), finish];
    const denied = await run(turns, ["--mcp-config", config, "--approval", "deny"]);
    expect(denied.code).toBe(4);
    expect(denied.result.status).toBe("blocked");
    expect(denied.result.reason).toContain("mcp__everything__echo");
    expect(denied.result.toolCalls).toBe(0);

    const allowed = await run(turns, [
      "--mcp-config",
      config,
      "--approval",
      "deny",
      "--allow-tool",
      "mcp__everything__echo",
    ]);
    expect(allowed.code).toBe(0);
    expect(toolResults(allowed.result)[0]).toMatchObject({ ok: true });

    // Naming one tool allows that one only.
    const other = await run(
      [call("mcp__everything__get-sum", { a: 1, b: 1 }), finish],
      [
        "--mcp-config",
        config,
        "--approval",
        "deny",
        "--allow-tool",
        "mcp__everything__echo",
        "--allow-tool",
        "mcp__everything__typo",
      ],
    );
    expect(other.code).toBe(4);
    expect(other.stderr).toContain("--allow-tool mcp__everything__typo 不是这次运行的 MCP 工具");
    expect(pids().filter(isRunning)).toEqual([]);
  });
});

describe("approval ask", () => {
  it("asks with the tool and its input; allow for the run covers that tool's later calls, a refusal blocks", async () => {
    const config = await mcpConfig({ everything: everything() });
    const flags = ["--mcp-config", config, "--approval", "ask", "--finish-gate", "none"];
    const turns = [
      call("mcp__everything__echo", { message: "一" }),
      call("mcp__everything__echo", { message: "二" }),
      finish,
    ];
    const approver = vi.fn<Approver>(async () => "allow_run");
    const allowed = await runScripted({ turns, flags, workspace: ws, scriptDir: base, approver });
    expect(allowed.code).toBe(0);
    expect(approver).toHaveBeenCalledTimes(1);
    const request = approver.mock.calls[0]?.[0];
    expect(request).toMatchObject({
      tool: "mcp__everything__echo",
      program: "mcp__everything__echo",
    });
    expect(request?.argv).toEqual(["mcp__everything__echo", JSON.stringify({ message: "一" })]);
    expect(toolResults(allowed.result).map((r) => r.ok)).toEqual([true, true]);

    const refused = await runScripted({
      turns,
      flags,
      workspace: ws,
      scriptDir: base,
      approver: async () => "deny",
    });
    expect(refused.code).toBe(4);
    expect(refused.result.toolCalls).toBe(0);
    expect(pids().filter(isRunning)).toEqual([]);
  });
});

describe("redaction", () => {
  it("masks a secret a tool returns in stdout, state.jsonl and trace.jsonl", async () => {
    // The server is given the secret; its get-env tool returns its environment.
    const config = await mcpConfig({ everything: everything({ LEAKED_VALUE: SECRET }) });
    const { code, stdout, result } = await run(
      [call("mcp__everything__get-env", {}), finish],
      ["--mcp-config", config, "--approval", "auto"],
      { MY_API_TOKEN: SECRET },
    );
    expect(code).toBe(0);
    expect(toolResults(result)[0]?.ok).toBe(true);
    expect(stdout).toContain("LEAKED_VALUE");
    expect(stdout).toContain("[REDACTED");
    const state = await runFile(result.runDir, "state.jsonl");
    const trace = await runFile(result.runDir, "trace.jsonl");
    expect(state).toContain("LEAKED_VALUE");
    for (const text of [stdout, state, trace]) expect(text).not.toContain(SECRET);
    // Sanity: the redactor of this environment does mask it.
    expect(createRedactor({ env: { MY_API_TOKEN: SECRET } })(SECRET)).not.toContain(SECRET);
  });
});

describe("secrets given to a server", () => {
  it("masks a value its env holds under a secret-looking name in stdout, state.jsonl, trace.jsonl and the reports", async () => {
    // Written in the config file itself: no variable of the CLI's environment holds it,
    // and `SERVICE_AUTH` is no field name the patterns know.
    const given = "mcp-given-8c7b6a5d4e3f2a1b";
    const config = await mcpConfig({ everything: everything({ SERVICE_AUTH: given }) });
    const { code, stdout, result } = await run(
      [
        call("mcp__everything__get-env", {}),
        call("echo", { text: `the server got ${given}` }),
        { action: { type: "finish", summary: `done with ${given}` } },
      ],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(code).toBe(0);
    expect(toolResults(result)[0]?.ok).toBe(true);
    expect(stdout).toContain("SERVICE_AUTH");
    const html = join(base, "report.html");
    const env = { CODING_AGENT_HOME: home, PATH: process.env.PATH };
    const report = await captureCli(["trace", result.runId, "--html", html], env);
    expect(report.code).toBe(0);
    const written = {
      stdout,
      state: await runFile(result.runDir, "state.jsonl"),
      trace: await runFile(result.runDir, "trace.jsonl"),
      report: report.stdout,
      html: await readFile(html, "utf8"),
    };
    for (const [where, text] of Object.entries(written)) expect(text, where).not.toContain(given);
    expect(written.state).toContain("[REDACTED:env]");
  });
});

describe("bounds", () => {
  it("an MCP result is cut to --max-observation-chars like every tool's", async () => {
    const config = await mcpConfig({ everything: everything() });
    const { code, result } = await run(
      [call("mcp__everything__echo", { message: "长".repeat(5_000) }), finish],
      ["--mcp-config", config, "--approval", "auto", "--max-observation-chars", "1000"],
    );
    expect(code).toBe(0);
    const message = result.messages.find((m: { role: string }) => m.role === "tool");
    expect(message.truncated).toBe(true);
    expect(message.originalLength).toBeGreaterThan(5_000);
    expect(message.content.length).toBeLessThanOrEqual(1_000);
  });
});

describe("redaction of failures", () => {
  it("masks a secret in a server's start failure on stderr and in the state log", async () => {
    const config = await mcpConfig({ leaky: { command: join(base, `bin-${SECRET}`) } });
    const { code, stderr, result } = await run(
      [call("mcp__leaky__t", {}), finish],
      ["--mcp-config", config, "--approval", "auto"],
      { MY_API_TOKEN: SECRET },
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(/MCP 服务器 leaky.*启动失败.*\[REDACTED/);
    expect(stderr).not.toContain(SECRET);
    expect(toolResults(result)[0]).toMatchObject({ ok: false, error: { code: "mcp_error" } });
    const state = await runFile(result.runDir, "state.jsonl");
    expect(state).toContain("mcp_error");
    expect(`${state}${JSON.stringify(result)}`).not.toContain(SECRET);
  });
});

describe("config files", () => {
  it("expands braced variables, with or without a :- default, from the CLI's environment when the server starts; the log keeps the file's text", async () => {
    const config = await mcpConfig({
      everything: {
        command: ref("MCP_SHELL"),
        args: [
          "-c",
          `echo $$ >> '${pidFile}'; echo "$TOKEN" > '${join(base, "token")}'; exec '${process.execPath}' "\${MCP_ENTRY:-${EVERYTHING}}" stdio`,
        ],
        env: { TOKEN: ref("MCP_TEST_TOKEN") },
      },
    });
    const { code, result } = await run(
      [call("mcp__everything__echo", { message: "展开了" }), finish],
      ["--mcp-config", config, "--approval", "auto"],
      { MCP_SHELL: "sh", MCP_TEST_TOKEN: "tok-expanded-0123456789abcdef" },
    );
    expect(code).toBe(0);
    expect(toolResults(result)[0]).toMatchObject({ ok: true });
    expect(pids()).toHaveLength(1);
    expect(await readFile(join(base, "token"), "utf8")).toBe("tok-expanded-0123456789abcdef\n");
    const state = await runFile(result.runDir, "state.jsonl");
    expect(state).not.toContain("tok-expanded-0123456789abcdef");
  });

  it("a variable that is not set and has no default is exit 2 naming the server, the field and the variable; nothing starts", async () => {
    const config = await mcpConfig({
      everything: { ...everything(), env: { TOKEN: ref("MCP_UNSET_TOKEN") } },
    });
    const { code, stderr } = await run([finish], ["--mcp-config", config]);
    expect(code).toBe(2);
    expect(stderr).toContain("mcpServers.everything.env.TOKEN");
    expect(stderr).toContain("MCP_UNSET_TOKEN");
    expect(stderr).toContain(ref("MCP_UNSET_TOKEN:-默认值"));
    expect(pids()).toEqual([]);
    const url = await mcpConfig(
      { remote: { url: `${ref("MCP_UNSET_BASE:-not a url")}/mcp` } },
      "url-var.json",
    );
    const second = await run([finish], ["--mcp-config", url]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain("mcpServers.remote.url 展开后不是 http:// 或 https:// 地址");
  });

  it("a bad --mcp-config is exit 2 with a Chinese error naming the file and the field", async () => {
    const config = await mcpConfig({ bad: { args: ["x"] } });
    const { code, stderr } = await run([finish], ["--mcp-config", config]);
    expect(code).toBe(2);
    expect(stderr).toContain(`MCP 配置文件 ${config} 无效`);
    expect(stderr).toContain("mcpServers.bad.command");
    const unknownKey = await mcpConfig({ x: { url: "ftp://example.com" } }, "url.json");
    const second = await run([finish], ["--mcp-config", unknownKey]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain("mcpServers.x.url");
    // `a__b` would make mcp__a__b__t ambiguous; SSE is not what §7 asks for.
    const ambiguous = await mcpConfig({ a__b: everything() }, "names.json");
    const third = await run([finish], ["--mcp-config", ambiguous]);
    expect(third.code).toBe(2);
    expect(third.stderr).toContain("mcpServers.a__b: 服务器名");
    const sse = await mcpConfig({ s: { type: "sse", url: "http://127.0.0.1:1/sse" } }, "sse.json");
    const fourth = await run([finish], ["--mcp-config", sse]);
    expect(fourth.code).toBe(2);
    expect(fourth.stderr).toContain("mcpServers.s.type");
    expect(pids()).toEqual([]);
    const missing = await run([finish], ["--mcp-config", join(base, "absent.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("读不了");
  });

  it("a bad mcpServers in the user's settings is exit 2 naming the file and the field", async () => {
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ mcpServers: { s: { command: 3 } } }),
    );
    const { code, stderr } = await run([finish], []);
    expect(code).toBe(2);
    expect(stderr).toContain(join(home, "settings.json"));
    expect(stderr).toContain("mcpServers.s.command");
  });
});

describe("replay", () => {
  it("gives the same result without starting any server", async () => {
    const config = await mcpConfig({
      everything: everything(),
      broken: { command: join(base, "none") },
    });
    const live = await run(
      [
        call("mcp__everything__echo", { message: "重放" }),
        call("mcp__everything__get-sum", { a: "x" }),
        call("mcp__broken__t", {}),
        finish,
      ],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(live.code).toBe(0);
    expect(pids()).toHaveLength(1);
    const replayed = await captureCli(["replay", live.result.runId, "--json"], {
      CODING_AGENT_HOME: home,
      PATH: process.env.PATH,
    });
    expect(replayed.code).toBe(0);
    expect(replayed.result.status).toBe("completed");
    expect(replayed.result.messages).toEqual(live.result.messages);
    // No server started: still one pid recorded, from the live run.
    expect(pids()).toHaveLength(1);
  });
});

describe("resume", () => {
  it("answers the recorded MCP calls from the log and runs the rest on servers it starts again", async () => {
    const config = await mcpConfig({ everything: everything() });
    const live = await run(
      [
        call("mcp__everything__echo", { message: "记录过的" }),
        call("mcp__everything__echo", { message: "续上的" }),
        finish,
      ],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(live.code).toBe(0);
    // A crash right before the second call's intent reached the disk.
    const file = join(live.result.runDir, "state.jsonl");
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    const second = lines.findIndex(
      (line, index) =>
        JSON.parse(line).type === "tool_intent" &&
        lines.slice(0, index).some((l) => JSON.parse(l).type === "tool_intent"),
    );
    await writeFile(file, `${lines.slice(0, second).join("\n")}\n`);
    const resumed = await captureCli(["resume", live.result.runId, "--json"], {
      CODING_AGENT_HOME: home,
      PATH: process.env.PATH,
    });
    expect(resumed.code).toBe(0);
    expect(toolResults(resumed.result)).toEqual([
      { ok: true, content: "Echo: 记录过的" },
      { ok: true, content: "Echo: 续上的" },
    ]);
    expect(pids()).toHaveLength(2);
    expect(pids().filter(isRunning)).toEqual([]);
  });
});

describe("cleanup", () => {
  it("leaves no server process when the run is cancelled by Ctrl-C", async () => {
    const config = await mcpConfig({ everything: everything() });
    const startedMark = join(ws, "started");
    const script = await writeScript(base, [
      call("mcp__everything__echo", { message: "x" }),
      call("run_command", { argv: ["touch", "started"] }),
      call("sleep", { ms: 30_000 }),
      finish,
    ]);
    const { code } = await spawnBin(
      [
        "run",
        "取消",
        "--script",
        script,
        "--workspace",
        ws,
        "--mcp-config",
        config,
        "--approval",
        "auto",
        "--allow-command",
        "touch",
        "--sandbox",
        "none",
      ],
      {
        interruptWhenExists: startedMark,
        env: { CODING_AGENT_HOME: home, PATH: process.env.PATH },
      },
    );
    expect(code).toBe(130);
    expect(pids()).toHaveLength(1);
    expect(pids().filter(isRunning)).toEqual([]);
  });

  it("leaves no grandchild either: a server a shell starts (and does not exec) ends with the run", async () => {
    // The inner shell records its own pid (`\$$`, not the outer one's) and execs the server.
    const inner = everything().args[1] as string;
    const config = await mcpConfig({
      wrapped: { command: "sh", args: ["-c", `sh -c "${inner.replaceAll("$", "\\$")}"; true`] },
    });
    const { code, result } = await run(
      [call("mcp__wrapped__echo", { message: "深一层" }), finish],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(code).toBe(0);
    expect(toolResults(result)[0]).toMatchObject({ ok: true, content: "Echo: 深一层" });
    expect(pids()).toHaveLength(1);
    expect(pids().filter(isRunning)).toEqual([]);
  });

  it("leaves no server process when the run fails", async () => {
    const config = await mcpConfig({ everything: everything() });
    const { code } = await run(
      [call("mcp__everything__echo", { message: "x" }), call("no_such_tool", {})],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(code).toBe(1);
    expect(pids()).toHaveLength(1);
    expect(pids().filter(isRunning)).toEqual([]);
  });
});

describe("streamable HTTP", () => {
  it("talks to a server by url", async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.stderr.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("listening")) resolve();
        });
        server.on("exit", () => reject(new Error("server exited")));
      });
      const config = await mcpConfig({ remote: { url: `http://127.0.0.1:${port}/mcp` } });
      const { code, result, stderr } = await run(
        [call("mcp__remote__get-sum", { a: 20, b: 22 }), finish],
        ["--mcp-config", config, "--approval", "auto"],
      );
      expect(stderr).not.toContain("启动失败");
      expect(code).toBe(0);
      expect(result.messages.find((m: { role: string }) => m.role === "tool")).toMatchObject({
        ok: true,
        content: "The sum of 20 and 22 is 42.",
      });
    } finally {
      server.kill("SIGKILL");
    }
  });

  it("a dead port is one error line and mcp_error, not a hang", async () => {
    const port = await freePort();
    const config = await mcpConfig({ remote: { url: `http://127.0.0.1:${port}/mcp` } });
    const { code, result, stderr } = await run(
      [call("mcp__remote__x", {}), finish],
      ["--mcp-config", config, "--approval", "auto"],
    );
    expect(code).toBe(0);
    expect(stderr.split("\n").filter((line) => line.includes("启动失败"))).toHaveLength(1);
    expect(toolResults(result)[0]).toMatchObject({ ok: false, error: { code: "mcp_error" } });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        resolve(typeof address === "object" && address !== null ? address.port : 0),
      );
    });
  });
}
