/**
 * MCP tools a server lists with `annotations.readOnlyHint: true` are concurrent (lesson 37 +
 * `Tool.concurrent`): a reply's calls to them run together, every other MCP call alone.
 * Against the real `@modelcontextprotocol/server-everything`, whose `echo` and `get-sum` are
 * listed read-only and `toggle-subscriber-updates` is not (`readOnlyHint: false`). The order
 * checked is the loop's, not timing: it starts every call of a concurrent group before it
 * awaits any of them, so their `tool_started` events all come before the first
 * `tool_completed`; a call that runs alone starts only after the call before it completed.
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listedReadOnly } from "../src/mcp/tools.ts";
import { isRunning } from "./support/process-state.ts";
import { captureCli } from "./support/run-cli.ts";
import { NO_FINISH_GATE, runArgv, writeScript } from "./support/scripted-run.ts";
import { EVERYTHING } from "./support/server-everything.ts";
import { useWorkspaceAndHome } from "./support/workspace-home.ts";

// Real server processes: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let base: string;
let ws: string;
let home: string;
let pidFile: string;
useWorkspaceAndHome("coding-agent-mcp-readonly-", (made) => {
  ({ base, workspace: ws, home } = made);
  pidFile = join(base, "pids");
});

/** Every server process a run started (each records its pid as it starts). */
const pids = () =>
  existsSync(pidFile)
    ? readFileSync(pidFile, "utf8").trim().split("\n").filter(Boolean).map(Number)
    : [];

const env = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH });

const mcp = (tool: string, input: unknown) => ({
  type: "tool_call",
  tool: `mcp__everything__${tool}`,
  input,
});
const finish = { action: { type: "finish", summary: "看完了" } };

/** One model reply making `calls`, then a finish, with server-everything configured. */
async function run(calls: unknown[]) {
  const config = join(base, "mcp.json");
  const server = {
    command: "sh",
    args: ["-c", `echo $$ >> '${pidFile}'; exec '${process.execPath}' '${EVERYTHING}' stdio`],
  };
  await writeFile(config, JSON.stringify({ mcpServers: { everything: server } }));
  const script = await writeScript(base, [{ actions: calls }, finish]);
  const flags = ["--mcp-config", config, "--approval", "auto", ...NO_FINISH_GATE];
  return captureCli(runArgv("用 MCP 工具", script, ws, ...flags), env());
}

const lines = async (file: string) =>
  (await readFile(file, "utf8"))
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The trace's tool events from `from` on, as `started <tool>` / `completed <tool>`. */
async function toolOrder(runDir: string, from = 0) {
  const events = (await lines(join(runDir, "trace.jsonl"))).slice(from);
  return events.flatMap((event) =>
    event.type === "tool_started" || event.type === "tool_completed"
      ? [`${String(event.type).slice("tool_".length)} ${String(event.tool).split("__")[2]}`]
      : [],
  );
}

/** The tool messages of a run's result, in call order. */
const toolMessages = (result: { messages: Array<Record<string, unknown>> }) =>
  result.messages
    .filter((message) => message.role === "tool")
    .map((message) => (message.ok ? message.content : message.error));

describe("listedReadOnly", () => {
  it("is true only for readOnlyHint === true; no other annotation counts", () => {
    expect(listedReadOnly({ annotations: { readOnlyHint: true } })).toBe(true);
    expect(listedReadOnly({ annotations: { readOnlyHint: true, openWorldHint: true } })).toBe(true);
    for (const annotations of [
      undefined,
      null,
      {},
      { readOnlyHint: false },
      { readOnlyHint: "true" },
      { readOnlyHint: 1 },
      { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    ]) {
      expect(listedReadOnly({ annotations }), JSON.stringify(annotations)).toBe(false);
    }
    expect(listedReadOnly({})).toBe(false);
  });
});

describe("read-only MCP tools", HANG_GUARD, () => {
  it("a reply's two read-only calls run together, results in call order; the log records readOnly and a replay is equal", async () => {
    const live = await run([mcp("echo", { message: "一" }), mcp("get-sum", { a: 1, b: 2 })]);
    expect(live.stderr).not.toContain("启动失败");
    expect(live.code).toBe(0);
    const { runDir, runId } = live.result;
    expect(await toolOrder(runDir)).toEqual([
      "started echo",
      "started get-sum",
      "completed echo",
      "completed get-sum",
    ]);
    expect(toolMessages(live.result)).toEqual(["Echo: 一", "The sum of 1 and 2 is 3."]);
    const state = await lines(join(runDir, "state.jsonl"));
    expect(state.slice(2, 6).map((event) => event.type)).toEqual([
      "tool_intent",
      "tool_intent",
      "tool_result",
      "tool_result",
    ]);
    // What the server listed, with its hint, is in run_started (a replay's tools come from it).
    const listed = (state[0] as { options: { mcp: { tools: Record<string, unknown>[] } } }).options
      .mcp.tools;
    const readOnly = (tool: string) =>
      listed.find((entry) => entry.tool === tool)?.readOnly as unknown;
    expect([readOnly("echo"), readOnly("get-sum"), readOnly("toggle-subscriber-updates")]).toEqual([
      true,
      true,
      false,
    ]);

    const replayed = await captureCli(["replay", runId, "--json"], env());
    expect(replayed.stderr).not.toContain("replay_diverged");
    expect(replayed.code).toBe(0);
    expect(replayed.result.messages).toEqual(live.result.messages);
    // No server started for the replay: still the live run's one.
    expect(pids()).toHaveLength(1);
    expect(pids().filter(isRunning)).toEqual([]);
  });

  it("a call to a tool not listed read-only runs alone, after the reads before it and before the next", async () => {
    const live = await run([
      mcp("echo", { message: "一" }),
      mcp("get-sum", { a: 1, b: 2 }),
      mcp("toggle-subscriber-updates", {}),
      mcp("echo", { message: "二" }),
    ]);
    expect(live.code).toBe(0);
    expect(await toolOrder(live.result.runDir)).toEqual([
      "started echo",
      "started get-sum",
      "completed echo",
      "completed get-sum",
      "started toggle-subscriber-updates",
      "completed toggle-subscriber-updates",
      "started echo",
      "completed echo",
    ]);
    const results = toolMessages(live.result);
    expect(results[0]).toBe("Echo: 一");
    expect(results[2]).toMatch(/^Started simulated resource updated notifications/);
    expect(results[3]).toBe("Echo: 二");
    const replayed = await captureCli(["replay", live.result.runId, "--json"], env());
    expect(replayed.code).toBe(0);
    expect(replayed.result.messages).toEqual(live.result.messages);
  });

  it("a log written before readOnly was recorded (its MCP calls one after another) still replays", async () => {
    const live = await run([mcp("echo", { message: "旧" }), mcp("get-sum", { a: 2, b: 3 })]);
    expect(live.code).toBe(0);
    const file = join(live.result.runDir, "state.jsonl");
    const events = await lines(file);
    // As the CLI wrote it then: no readOnly in the record, each call's result after its intent.
    const started = events[0] as { options: { mcp: { tools: Record<string, unknown>[] } } };
    for (const tool of started.options.mcp.tools) delete tool.readOnly;
    const [intentA, intentB, resultA, resultB] = events.slice(2, 6);
    const old = [events[0], events[1], intentA, resultA, intentB, resultB, ...events.slice(6)];
    const renumbered = old.map((event, index) => JSON.stringify({ ...event, seq: index + 1 }));
    await writeFile(file, `${renumbered.join("\n")}\n`);
    expect(await readFile(file, "utf8")).not.toContain("readOnly");

    const replayed = await captureCli(["replay", live.result.runId, "--json"], env());
    expect(replayed.stderr).not.toContain("replay_diverged");
    expect(replayed.code).toBe(0);
    expect(replayed.result.status).toBe("completed");
    expect(replayed.result.messages).toEqual(live.result.messages);
  });

  it("a resume starts its servers again and runs a reply's read-only calls together", async () => {
    const live = await run([mcp("echo", { message: "续" }), mcp("get-sum", { a: 4, b: 5 })]);
    expect(live.code).toBe(0);
    const { runDir, runId } = live.result;
    // A crash right after the reply was logged: neither call's intent reached the disk.
    const file = join(runDir, "state.jsonl");
    const kept = (await readFile(file, "utf8")).split("\n").slice(0, 2);
    await writeFile(file, `${kept.join("\n")}\n`);
    const before = (await lines(join(runDir, "trace.jsonl"))).length;
    const resumed = await captureCli(["resume", runId, "--json"], env());
    expect(resumed.code).toBe(0);
    expect(await toolOrder(runDir, before)).toEqual([
      "started echo",
      "started get-sum",
      "completed echo",
      "completed get-sum",
    ]);
    expect(toolMessages(resumed.result)).toEqual(["Echo: 续", "The sum of 4 and 5 is 9."]);
    expect(pids()).toHaveLength(2);
    expect(pids().filter(isRunning)).toEqual([]);
  });
});
