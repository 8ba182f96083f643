/**
 * Trust pinned to content (docs/contracts.md §8 "Trust"): `--trust-workspace` records a hash of the
 * workspace's hook and MCP definitions and of the scripts they name; a later run without
 * the flag runs them only while they are unchanged, and otherwise says in one line what
 * changed. And the agent cannot plant a hook: its edit tools refuse `.coding-agent/**`,
 * `.mcp.json` and the scripts hooks run.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WORKSPACE_SETTINGS } from "../src/hooks/settings.ts";
import { captureCli } from "./support/run-cli.ts";
import { NO_FINISH_GATE, runArgv, writeScript } from "./support/scripted-run.ts";
import { useWorkspaceAndHome } from "./support/workspace-home.ts";

let base: string;
let ws: string;
let home: string;
let marker: string;
useWorkspaceAndHome("coding-agent-pins-", async (made) => {
  ({ base, workspace: ws, home } = made);
  marker = join(base, "hook-ran");
  await mkdir(join(ws, ".coding-agent"));
});

const preToolUse = (command: string) => ({ hooks: { PreToolUse: [{ command }] } });
const settings = (value: unknown) => writeFile(join(ws, WORKSPACE_SETTINGS), JSON.stringify(value));
const echoTurns = [
  { action: { type: "tool_call", tool: "echo", input: { text: "hi" } } },
  { action: { type: "finish", summary: "好了" } },
];

async function run(flags: string[] = [], turns: unknown[] = echoTurns) {
  const script = await writeScript(base, turns);
  return captureCli(runArgv("看看", script, ws, ...NO_FINISH_GATE, ...flags), {
    CODING_AGENT_HOME: home,
    PATH: process.env.PATH,
  });
}

const changedLines = (stderr: string) =>
  stderr.split("\n").filter((line) => line.includes("信任之后变了"));

describe("--trust-workspace pins the definitions", () => {
  it("records them, and a later run without the flag runs the unchanged hooks", async () => {
    await settings(preToolUse(`touch '${marker}'`));
    expect((await run(["--trust-workspace"])).code).toBe(0);
    await rm(marker);
    const { code, stderr } = await run();
    expect(code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(changedLines(stderr)).toEqual([]);
  });

  it("ignores a changed hook command, saying in one line which definition changed", async () => {
    await settings(preToolUse("true"));
    await run(["--trust-workspace"]);
    await settings(preToolUse(`touch '${marker}'`));
    const { code, stderr } = await run();
    expect(code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(changedLines(stderr)).toHaveLength(1);
    expect(changedLines(stderr)[0]).toContain("hooks.PreToolUse[0] 已修改");
  });

  it("ignores an added MCP server and a hook added later, naming both", async () => {
    await settings(preToolUse("true"));
    await run(["--trust-workspace"]);
    await settings({
      hooks: { PreToolUse: [{ command: "true" }], Stop: [{ command: `touch '${marker}'` }] },
      mcpServers: { evil: { command: "sh", args: ["-c", `touch '${marker}'`] } },
    });
    const { stderr } = await run();
    expect(existsSync(marker)).toBe(false);
    const [line] = changedLines(stderr);
    expect(line).toContain("hooks.Stop[0] 新增");
    expect(line).toContain("mcpServers.evil 新增");
  });

  it("ignores the hooks when a script a hook runs changed, naming the script", async () => {
    await mkdir(join(ws, "scripts"));
    await writeFile(join(ws, "scripts", "check.sh"), "exit 0\n");
    await settings(preToolUse("sh scripts/check.sh"));
    await run(["--trust-workspace"]);
    await writeFile(join(ws, "scripts", "check.sh"), `touch '${marker}'\n`);
    const { stderr } = await run();
    expect(existsSync(marker)).toBe(false);
    expect(changedLines(stderr)[0]).toContain("scripts/check.sh 已修改");
  });

  it("untrusts a settings file that appears after a workspace without one was trusted", async () => {
    await run(["--trust-workspace"]);
    await settings(preToolUse(`touch '${marker}'`));
    const { stderr } = await run();
    expect(existsSync(marker)).toBe(false);
    expect(changedLines(stderr)[0]).toContain("hooks.PreToolUse[0] 新增");
  });

  it("trusts the changed definitions again with --trust-workspace", async () => {
    await settings(preToolUse("true"));
    await run(["--trust-workspace"]);
    await settings(preToolUse(`touch '${marker}'`));
    await run(["--trust-workspace"]);
    await rm(marker);
    const { stderr } = await run();
    expect(existsSync(marker)).toBe(true);
    expect(changedLines(stderr)).toEqual([]);
  });

  it("leaves a plain path the user listed meaning what it meant: whatever the workspace defines", async () => {
    await writeFile(join(home, "trusted.json"), JSON.stringify({ workspaces: [ws] }));
    await settings(preToolUse("true"));
    await run(["--trust-workspace"]);
    expect(JSON.parse(await readFile(join(home, "trusted.json"), "utf8"))).toEqual({
      workspaces: [ws],
    });
    await settings(preToolUse(`touch '${marker}'`));
    await run();
    expect(existsSync(marker)).toBe(true);
  });
});

describe("the agent cannot plant a hook", () => {
  const plant = (path: string) => [
    {
      action: {
        type: "tool_call",
        tool: "write_file",
        input: { path, content: JSON.stringify(preToolUse(`touch '${marker}'`)) },
      },
    },
    { action: { type: "finish", summary: "好了" } },
  ];

  it.each([WORKSPACE_SETTINGS, ".mcp.json", "scripts/check.sh"])(
    "write_file %s under --approval auto in a trusted workspace is path_not_allowed",
    async (path) => {
      await mkdir(join(ws, "scripts"));
      await writeFile(join(ws, "scripts", "check.sh"), "exit 0\n");
      await settings(preToolUse("sh scripts/check.sh"));
      const { result } = await run(["--trust-workspace", "--approval", "auto"], plant(path));
      const tool = result.messages.find((m: { role: string }) => m.role === "tool");
      expect(tool.content).toContain("path_not_allowed");
      expect(await readFile(join(ws, WORKSPACE_SETTINGS), "utf8")).not.toContain(marker);
      expect(await readFile(join(ws, "scripts", "check.sh"), "utf8")).toBe("exit 0\n");
      expect(existsSync(join(ws, ".mcp.json"))).toBe(false);
      await run(["--trust-workspace"]);
      expect(existsSync(marker)).toBe(false);
    },
  );
});
