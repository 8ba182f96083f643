/**
 * Workspace trust (docs/contracts.md §7, lesson 36): a cloned repository must not run code by being
 * opened. Hooks in a workspace's `.coding-agent/settings.json` run only when it is trusted
 * (`--trust-workspace`, or its real path in `$CODING_AGENT_HOME/trusted.json`); the user's
 * own `$CODING_AGENT_HOME/settings.json` always runs. Attacked through symlinks, `..`,
 * parents and children, a settings file that points out of the workspace, and bad files.
 */
import { existsSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WORKSPACE_SETTINGS } from "../src/hooks/settings.ts";
import { captureCli } from "./support/run-cli.ts";
import { NO_FINISH_GATE, runArgv, writeScript } from "./support/scripted-run.ts";
import { useWorkspaceAndHome } from "./support/workspace-home.ts";

let base: string;
let ws: string;
let home: string;
let marks: string;
useWorkspaceAndHome("coding-agent-trust-", async (made) => {
  ({ base, workspace: ws, home } = made);
  marks = join(base, "marks");
  await mkdir(marks);
});

const mark = (name: string) => join(marks, name);

/** Settings whose every hook would leave a marker (and one inside the workspace). */
function pwnSettings(name: string) {
  const touch = (event: string) => ({
    command: `touch '${mark(`${name}-${event}`)}'; touch pwned-${event}`,
  });
  return {
    hooks: {
      PreToolUse: [touch("pre")],
      PostToolUse: [touch("post")],
      Stop: [touch("stop")],
    },
  };
}

async function workspaceSettings(dir: string, settings: unknown) {
  await mkdir(join(dir, ".coding-agent"), { recursive: true });
  const text = typeof settings === "string" ? settings : JSON.stringify(settings);
  await writeFile(join(dir, WORKSPACE_SETTINGS), text);
}

async function run(workspace: string, flags: string[] = []) {
  const script = await writeScript(base, [
    { action: { type: "tool_call", tool: "echo", input: { text: "hi" } } },
    { action: { type: "finish", summary: "好了" } },
  ]);
  return captureCli(runArgv("看看", script, workspace, ...NO_FINISH_GATE, ...flags), {
    CODING_AGENT_HOME: home,
    PATH: process.env.PATH,
  });
}

const trust = (...workspaces: string[]) =>
  writeFile(join(home, "trusted.json"), JSON.stringify({ workspaces }));

const ran = (name: string) =>
  ["pre", "post", "stop"].filter((event) => existsSync(mark(`${name}-${event}`)));
const warnings = (stderr: string) => stderr.split("未被信任").length - 1;

describe("an untrusted workspace", () => {
  it("runs none of its hooks: no file ever appears, and exactly one warning says why", async () => {
    await workspaceSettings(ws, pwnSettings("ws"));
    const { code, stderr, result } = await run(ws);
    expect(code).toBe(0);
    expect(result.status).toBe("completed");
    expect(ran("ws")).toEqual([]);
    for (const event of ["pre", "post", "stop"]) {
      expect(existsSync(join(ws, `pwned-${event}`))).toBe(false);
    }
    expect(warnings(stderr)).toBe(1);
    expect(stderr).toContain("--trust-workspace");
  });

  it("is not even parsed: a broken settings file is a warning, not an error", async () => {
    await workspaceSettings(ws, "{ not json");
    const { code, stderr } = await run(ws);
    expect(code).toBe(0);
    expect(warnings(stderr)).toBe(1);
  });

  it("gives no warning when it has no settings file", async () => {
    const { code, stderr } = await run(ws);
    expect(code).toBe(0);
    expect(warnings(stderr)).toBe(0);
  });

  it("still runs the user's own hooks from $CODING_AGENT_HOME/settings.json", async () => {
    await workspaceSettings(ws, pwnSettings("ws"));
    await writeFile(join(home, "settings.json"), JSON.stringify(pwnSettings("user")));
    const { code, stderr } = await run(ws);
    expect(code).toBe(0);
    expect(ran("user")).toEqual(["pre", "post", "stop"]);
    expect(ran("ws")).toEqual([]);
    expect(warnings(stderr)).toBe(1);
  });
});

describe("a trusted workspace", () => {
  it("--trust-workspace runs its hooks, after the user's", async () => {
    await workspaceSettings(ws, pwnSettings("ws"));
    const { code, stderr } = await run(ws, ["--trust-workspace"]);
    expect(code).toBe(0);
    expect(ran("ws")).toEqual(["pre", "post", "stop"]);
    expect(warnings(stderr)).toBe(0);
  });

  it("trusted.json with its real path runs its hooks", async () => {
    await workspaceSettings(ws, pwnSettings("ws"));
    await trust(ws);
    const { code } = await run(ws);
    expect(code).toBe(0);
    expect(ran("ws")).toEqual(["pre", "post", "stop"]);
  });

  it("is judged by real path: a symlink to it, or a symlink listed, is the same folder", async () => {
    await workspaceSettings(ws, pwnSettings("ws"));
    const link = join(base, "link");
    await symlink(ws, link);
    await trust(ws);
    expect((await run(link)).code).toBe(0);
    expect(ran("ws")).toEqual(["pre", "post", "stop"]);
    await rm(marks, { recursive: true });
    await mkdir(marks);
    await trust(link);
    expect((await run(ws)).code).toBe(0);
    expect(ran("ws")).toEqual(["pre", "post", "stop"]);
  });

  it("a symlink inside a trusted folder is judged by where it points, not where it sits", async () => {
    const other = join(base, "other");
    await mkdir(other);
    await workspaceSettings(other, pwnSettings("other"));
    const link = join(ws, "to-other");
    await symlink(other, link);
    await trust(ws);
    const { stderr } = await run(link);
    expect(ran("other")).toEqual([]);
    expect(warnings(stderr)).toBe(1);
  });

  it("trusting a parent does not trust a child, nor a child its parent; `..` is resolved", async () => {
    const child = join(ws, "child");
    await mkdir(child);
    await workspaceSettings(child, pwnSettings("child"));
    await workspaceSettings(ws, pwnSettings("parent"));
    await trust(ws);
    const inChild = await run(child);
    expect(ran("child")).toEqual([]);
    expect(warnings(inChild.stderr)).toBe(1);
    // child/.. is the parent, which is trusted.
    await run(join(child, ".."));
    expect(ran("parent")).toEqual(["pre", "post", "stop"]);
    await rm(marks, { recursive: true });
    await mkdir(marks);
    await trust(child);
    const inParent = await run(ws);
    expect(ran("parent")).toEqual([]);
    expect(warnings(inParent.stderr)).toBe(1);
  });

  it("refuses a settings file that is a symlink out of the workspace (exit 2), without reading it", async () => {
    const outside = join(base, "outside-settings.json");
    await writeFile(outside, JSON.stringify(pwnSettings("outside")));
    await mkdir(join(ws, ".coding-agent"));
    await symlink(outside, join(ws, WORKSPACE_SETTINGS));
    const trusted = await run(ws, ["--trust-workspace"]);
    expect(trusted.code).toBe(2);
    expect(trusted.stderr).toContain(join(ws, WORKSPACE_SETTINGS));
    expect(trusted.stderr).toContain("工作区之外");
    expect(ran("outside")).toEqual([]);
    expect(existsSync(join(home, "runs"))).toBe(false);
    const untrusted = await run(ws);
    expect(untrusted.code).toBe(0);
    expect(ran("outside")).toEqual([]);
    expect(warnings(untrusted.stderr)).toBe(1);
  });

  it("refuses a .coding-agent folder that is a symlink out of the workspace", async () => {
    const outside = join(base, "outside-dir");
    await mkdir(outside);
    await writeFile(join(outside, "settings.json"), JSON.stringify(pwnSettings("outside")));
    await symlink(outside, join(ws, ".coding-agent"));
    const { code, stderr } = await run(ws, ["--trust-workspace"]);
    expect(code).toBe(2);
    expect(stderr).toContain("工作区之外");
    expect(ran("outside")).toEqual([]);
  });
});

describe("bad settings and trust files are a clear error naming the file and the field (exit 2)", () => {
  it.each([
    [
      "an empty command",
      { hooks: { PreToolUse: [{ command: "" }] } },
      "hooks.PreToolUse[0].command",
    ],
    [
      "Claude Code's nested shape",
      { hooks: { PreToolUse: [{ matcher: "echo", hooks: [{ type: "command", command: "x" }] }] } },
      "hooks.PreToolUse[0]",
    ],
    [
      "a matcher that is no regex",
      { hooks: { PostToolUse: [{ matcher: "(", command: "x" }] } },
      "hooks.PostToolUse[0].matcher",
    ],
    [
      "a timeout that is text",
      { hooks: { Stop: [{ command: "x", timeoutMs: "10s" }] } },
      "hooks.Stop[0].timeoutMs",
    ],
    ["an unknown event", { hooks: { PreCompact: [{ command: "x" }] } }, "hooks"],
    ["hooks that are a list", { hooks: [] }, "hooks"],
  ])("%s", async (_, settings, field) => {
    await workspaceSettings(ws, settings);
    const { code, stderr, stdout } = await run(ws, ["--trust-workspace"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(join(ws, WORKSPACE_SETTINGS));
    expect(stderr).toContain(field);
    expect(stderr).toContain("无效");
    expect(existsSync(join(home, "runs"))).toBe(false);
  });

  it("a user settings file that is not JSON", async () => {
    await writeFile(join(home, "settings.json"), "{ hooks: ");
    const { code, stderr } = await run(ws);
    expect(code).toBe(2);
    expect(stderr).toContain(join(home, "settings.json"));
    expect(stderr).toContain("不是有效的 JSON");
  });

  it.each([
    ["not JSON", "[", "不是有效的 JSON"],
    ["a relative path", JSON.stringify({ workspaces: ["ws"] }), "workspaces[0]"],
    ["the wrong shape", JSON.stringify(["/a"]), "无效"],
  ])("a trusted.json that is %s", async (_, text, expected) => {
    await workspaceSettings(ws, pwnSettings("ws"));
    await writeFile(join(home, "trusted.json"), text);
    const { code, stderr } = await run(ws);
    expect(code).toBe(2);
    expect(stderr).toContain(join(home, "trusted.json"));
    expect(stderr).toContain(expected);
    expect(ran("ws")).toEqual([]);
  });
});
