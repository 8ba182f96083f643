/**
 * Settings for defaults (docs/contracts.md §8 "Settings"): the `run` object of the user's
 * settings file, and of a trusted workspace's, gives defaults in the flags' own names; a
 * workspace may not choose the backend, the key variable, the address or the approval mode;
 * a typo or a wrong type is an error naming the file and the key, never a silent default.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadHookSettings, WORKSPACE_SETTINGS } from "../src/hooks/settings.ts";
import { pinDefinitions } from "../src/hooks/trust-pins.ts";
import {
  layerDefaults,
  readUserRunDefaults,
  runDefaultsOf,
  USER_ONLY_FLAGS,
} from "../src/run-defaults.ts";

describe("settings 文件里 run 的默认值", () => {
  it("选项名照写（不带 --），数字变成命令行上的文本，列表原样", () => {
    const result = runDefaultsOf(
      {
        hooks: {},
        run: {
          provider: "deepseek",
          "max-steps": 40,
          "allow-command": ["npm", "git"],
          quiet: true,
          "max-cost-usd": 0.5,
        },
      },
      "/h/settings.json",
      "user",
    );
    expect(result).toEqual({
      ok: true,
      defaults: {
        values: {
          provider: "deepseek",
          "max-steps": "40",
          "allow-command": ["npm", "git"],
          quiet: true,
          "max-cost-usd": "0.5",
        },
        origins: {
          provider: "/h/settings.json run.provider",
          "max-steps": "/h/settings.json run.max-steps",
          "allow-command": "/h/settings.json run.allow-command",
          quiet: "/h/settings.json run.quiet",
          "max-cost-usd": "/h/settings.json run.max-cost-usd",
        },
      },
    });
  });

  it("没有 run 时没有默认值；其他顶层键（hooks、mcpServers）不归它管", () => {
    expect(runDefaultsOf({ hooks: {} }, "f", "user")).toEqual({
      ok: true,
      defaults: { values: {}, origins: {} },
    });
  });

  it.each([
    [{ run: ["max-steps"] }, "run 无效：需要一个对象"],
    [{ run: { "max-step": 40 } }, "run.max-step 无效：不是可以在设置文件里给默认值的选项"],
    [{ run: { "--max-steps": 40 } }, "run.--max-steps 无效"],
    [{ run: { script: "s.json" } }, "run.script 无效：不是可以"],
    [{ run: { workspace: "/" } }, "run.workspace 无效：不是可以"],
    [{ run: { "trust-workspace": true } }, "run.trust-workspace 无效：不是可以"],
    [{ run: { "max-steps": "40" } }, "run.max-steps 无效：需要数字"],
    [{ run: { "max-steps": Number.NaN } }, "run.max-steps 无效：需要数字"],
    [{ run: { "allow-command": "npm" } }, 'run.allow-command 无效：需要字符串数组，如 ["npm"]'],
    [{ run: { "allow-command": ["npm", 1] } }, "run.allow-command 无效：需要字符串数组"],
    [{ run: { quiet: "yes" } }, "run.quiet 无效：需要 true 或 false"],
    [{ run: { model: null } }, "run.model 无效：需要字符串"],
  ])("拒绝 %j，说出文件和键", (document, message) => {
    const result = runDefaultsOf(document, "/h/settings.json", "user");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain("/h/settings.json");
      expect(result.message).toContain(message);
    }
  });

  it.each(USER_ONLY_FLAGS)("工作区的设置文件不能设置 %s（用户自己的可以）", (flag) => {
    const document = { run: { [flag]: "x" } };
    expect(runDefaultsOf(document, "/h/settings.json", "user").ok).toBe(true);
    const result = runDefaultsOf(document, "/ws/.coding-agent/settings.json", "workspace");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(`run.${flag} 无效：工作区的设置文件不能设置`);
      expect(result.message).toContain("密钥发往哪里");
    }
  });

  it("上层逐个选项盖住下层：列表整个替换，不合并", () => {
    const user = runDefaultsOf(
      { run: { "max-steps": 40, "allow-command": ["npm"], model: "m" } },
      "u",
      "user",
    );
    const workspace = runDefaultsOf(
      { run: { "max-steps": 60, "allow-command": ["cargo"] } },
      "w",
      "workspace",
    );
    if (!user.ok || !workspace.ok) throw new Error("设置应当有效");
    expect(layerDefaults(user.defaults, workspace.defaults)).toEqual({
      values: { "max-steps": "60", "allow-command": ["cargo"], model: "m" },
      origins: {
        "max-steps": "w run.max-steps",
        "allow-command": "w run.allow-command",
        model: "u run.model",
      },
    });
  });
});

describe("从文件读出默认值", () => {
  let base: string;
  let home: string;
  let ws: string;
  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-run-defaults-")));
    home = join(base, "home");
    ws = join(base, "ws");
    await Promise.all([mkdir(home), mkdir(join(ws, ".coding-agent"), { recursive: true })]);
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("用户的 settings.json：不存在时没有默认值，坏 JSON 说出文件", async () => {
    expect(await readUserRunDefaults(home)).toEqual({
      ok: true,
      defaults: { values: {}, origins: {} },
    });
    await writeFile(join(home, "settings.json"), "{ run: ");
    const bad = await readUserRunDefaults(home);
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.message).toContain(`设置文件 ${join(home, "settings.json")} 不是有效的 JSON`);
  });

  it("未被信任的工作区：它的 run 不生效；信任后盖住用户的", async () => {
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ run: { "max-steps": 40, model: "m" } }),
    );
    await writeFile(join(ws, WORKSPACE_SETTINGS), JSON.stringify({ run: { "max-steps": 60 } }));
    const untrusted = await loadHookSettings({ workspace: ws, home, trustWorkspace: false });
    if (!untrusted.ok) throw new Error(untrusted.message);
    expect(untrusted.runDefaults.values).toEqual({ "max-steps": "40", model: "m" });
    const trusted = await loadHookSettings({ workspace: ws, home, trustWorkspace: true });
    if (!trusted.ok) throw new Error(trusted.message);
    expect(trusted.runDefaults.values).toEqual({ "max-steps": "60", model: "m" });
    expect(trusted.runDefaults.origins["max-steps"]).toBe(
      `${join(ws, WORKSPACE_SETTINGS)} run.max-steps`,
    );
  });

  it("信任的工作区设置 approval：整个设置文件被拒绝（退出码 2 的消息），不是悄悄忽略", async () => {
    await writeFile(join(ws, WORKSPACE_SETTINGS), JSON.stringify({ run: { approval: "auto" } }));
    const result = await loadHookSettings({ workspace: ws, home, trustWorkspace: true });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain("run.approval 无效：工作区的设置文件不能设置");
  });

  it("信任钉住 run 的每个默认值：改了 allow-command 就要重新信任", async () => {
    const before = await pinDefinitions(ws, { run: { "allow-command": ["npm"] } });
    const after = await pinDefinitions(ws, { run: { "allow-command": ["npm", "curl"] } });
    expect(Object.keys(before)).toEqual(["run.allow-command"]);
    expect(after["run.allow-command"]).not.toBe(before["run.allow-command"]);
  });
});
