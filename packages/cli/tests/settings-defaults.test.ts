/**
 * Settings instead of ten flags (docs/contracts.md §8 "Settings"): `run` defaults from
 * `$CODING_AGENT_HOME/settings.json` and a trusted workspace's settings file, the command
 * line over both, `--print-config` saying where each value came from, a workspace that may
 * not choose the backend, the key or the approval, and a scripted (Fake Model) run that no
 * real-model setting can turn into a paid one.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WORKSPACE_SETTINGS } from "../src/hooks/settings.ts";
import { SETTABLE_FLAGS } from "../src/run-defaults.ts";
import { RUN_FLAGS } from "../src/run-flags.ts";
import { call, captureCli } from "./support/run-cli.ts";
import { NO_FINISH_GATE, runArgv, writeScript } from "./support/scripted-run.ts";
import { useWorkspaceAndHome } from "./support/workspace-home.ts";

let home: string;
let ws: string;
let script: string;
useWorkspaceAndHome("coding-agent-settings-", async (made) => {
  ({ workspace: ws, home } = made);
  await mkdir(join(ws, ".coding-agent"));
  // Two tool calls, then a finish: three model steps.
  script = await writeScript(made.base, [
    call("echo", { text: "一" }),
    call("echo", { text: "二" }),
    { action: { type: "finish", summary: "好了" } },
  ]);
});

const userSettings = (run: unknown) =>
  writeFile(join(home, "settings.json"), JSON.stringify({ run }));
const workspaceSettings = (run: unknown) =>
  writeFile(join(ws, WORKSPACE_SETTINGS), JSON.stringify({ run }));
const env = (more: Record<string, string> = {}) => ({
  CODING_AGENT_HOME: home,
  PATH: process.env.PATH,
  ...more,
});
const scripted = (...flags: string[]) =>
  captureCli(runArgv("看看", script, ws, ...NO_FINISH_GATE, ...flags), env());
const printConfig = async (...flags: string[]) => {
  const { code, stdout, stderr } = await captureCli(
    ["run", "--print-config", "--json", "--workspace", ws, ...flags],
    env(),
  );
  expect(stderr).toBe("");
  expect(code).toBe(0);
  return JSON.parse(stdout) as Record<string, { value: unknown; source: string; setting?: string }>;
};

describe("run 的默认值来自 settings.json，命令行盖住它", () => {
  it("every key a settings file may set is a flag of run", () => {
    for (const flag of Object.keys(SETTABLE_FLAGS)) expect(Object.keys(RUN_FLAGS)).toContain(flag);
  });

  it("the user's max-steps ends a run the default would have let finish; the flag overrides it", async () => {
    await userSettings({ "max-steps": 2 });
    const limited = await scripted();
    expect(limited.code).toBe(3);
    expect(limited.result).toMatchObject({ status: "budget_exceeded" });
    const overridden = await scripted("--max-steps", "5");
    expect(overridden.code).toBe(0);
    expect(overridden.result).toMatchObject({ status: "completed" });
  });

  it("--print-config names each value's source: command line, the settings entry, or the default", async () => {
    await userSettings({ "max-steps": 40, "allow-command": ["npm"], "max-cost-usd": 0.5 });
    const config = await printConfig("--max-tool-calls", "9");
    const file = join(home, "settings.json");
    expect(config["max-steps"]).toEqual({
      value: 40,
      source: "settings",
      setting: `${file} run.max-steps`,
    });
    expect(config["allow-command"]).toMatchObject({ value: ["npm"], source: "settings" });
    expect(config["max-cost-usd"]).toMatchObject({ value: 0.5, source: "settings" });
    expect(config["max-tool-calls"]).toEqual({ value: 9, source: "command-line" });
    expect(config.approval).toEqual({ value: "ask", source: "default" });
    expect(config).not.toHaveProperty("print-config");
    // The table for people says the same.
    const table = await captureCli(["run", "--print-config", "--workspace", ws], env());
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`--max-steps +40 +${file.replaceAll("/", "\\/")} run\\.max-steps`),
    );
    expect(table.stdout).toMatch(/--approval +ask +默认/);
  });

  it("a bad value in the settings file is exit 2 naming the file and key, as a bad flag would be", async () => {
    await userSettings({ approval: "sometimes" });
    const bad = await scripted();
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--approval 只能是`);
    expect(bad.stderr).toContain(`（来自 ${join(home, "settings.json")} run.approval）`);
    await userSettings({ "max-stepz": 3 });
    const typo = await scripted();
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("run.max-stepz 无效：不是可以在设置文件里给默认值的选项");
  });

  it("--api-key-env reads the key from the variable it names (and the message names that variable)", async () => {
    await userSettings({
      provider: "deepseek",
      model: "deepseek-chat",
      "api-key-env": "MY_LLM_KEY",
    });
    const missing = await captureCli(["run", "看看", "--workspace", ws, "--json"], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("需要环境变量 MY_LLM_KEY");
    const config = await printConfig();
    expect(config.provider).toMatchObject({ value: "deepseek", source: "settings" });
    expect(config["api-key-env"]).toMatchObject({ value: "MY_LLM_KEY", source: "settings" });
    const keyItself = await captureCli(
      ["run", "看看", "--provider", "deepseek", "--model", "m", "--api-key-env", "sk-abc123"],
      env(),
    );
    expect(keyItself.code).toBe(2);
    expect(keyItself.stderr).toContain("--api-key-env 需要环境变量名");
  });

  it("a scripted run takes none of a real model's settings: it stays the offline Fake Model", async () => {
    await userSettings({
      provider: "deepseek",
      model: "deepseek-chat",
      "reasoning-effort": "high",
      "max-steps": 5,
    });
    const run = await scripted();
    expect(run.stderr).toContain("Fake Model");
    expect(run.stderr).not.toContain("deepseek");
    expect(run.code).toBe(0);
    expect(run.result).toMatchObject({ status: "completed" });
    const config = await printConfig("--script", script);
    expect(config.provider).toEqual({ value: "fake", source: "default" });
    expect(config.model).toEqual({ source: "default" });
    expect(config["max-steps"]).toMatchObject({ value: 5, source: "settings" });
  });
});

describe("a workspace's settings: only when trusted, and never the backend, the key or the approval", () => {
  it("an untrusted workspace's run defaults are ignored; trusted, they override the user's", async () => {
    await userSettings({ "max-steps": 40 });
    await workspaceSettings({ "max-steps": 60, "test-command": "npm test" });
    expect((await printConfig())["max-steps"]).toMatchObject({ value: 40, source: "settings" });
    const trusted = await printConfig("--trust-workspace");
    expect(trusted["max-steps"]).toEqual({
      value: 60,
      source: "settings",
      setting: `${join(ws, WORKSPACE_SETTINGS)} run.max-steps`,
    });
    expect(trusted["test-command"]).toMatchObject({ value: "npm test", source: "settings" });
  });

  it.each([
    ["provider", "openai"],
    ["base-url", "https://attacker.example/v1"],
    ["api-key-env", "AWS_SECRET_ACCESS_KEY"],
    ["approval", "auto"],
  ])("a trusted workspace setting %s is refused, exit 2", async (flag, value) => {
    await workspaceSettings({ [flag]: value });
    const run = await scripted("--trust-workspace");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`run.${flag} 无效：工作区的设置文件不能设置`);
  });

  it("a changed run default untrusts the workspace until it is trusted again", async () => {
    await workspaceSettings({ "allow-command": ["npm"] });
    expect((await printConfig("--trust-workspace"))["allow-command"]).toMatchObject({
      value: ["npm"],
    });
    await workspaceSettings({ "allow-command": ["npm", "curl"] });
    const changed = await printConfig();
    expect(changed["allow-command"]).toEqual({ value: [], source: "default" });
  });
});
