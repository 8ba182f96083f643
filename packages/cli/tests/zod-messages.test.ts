/**
 * zod's own messages, wherever the `coding-agent` command shows them, are Chinese: a settings
 * file, a scripted (or real) model's action, a tool input. The real bin is run: the language
 * is set for the command's process, not for a program that imports the package.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, finish } from "./support/run-cli.ts";
import { spawnBin } from "./support/spawn-bin.ts";

let base: string;
let home: string;
let workspace: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "zod-messages-"));
  home = join(base, "home");
  workspace = join(base, "ws");
  await mkdir(home);
  await mkdir(workspace);
});
afterEach(() => rm(base, { recursive: true, force: true }));

const bin = (args: readonly string[]) =>
  spawnBin(args, { env: { CODING_AGENT_HOME: home, PATH: process.env.PATH } });

async function runScript(turns: unknown[]) {
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(turns));
  return bin(["run", "看看", "--script", script, "--workspace", workspace, "--json"]);
}

describe("zod's messages shown by coding-agent", () => {
  it("name a wrong field of the user's settings file in Chinese (exit 2)", async () => {
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ command: 5 }] } }),
    );
    const ran = await bin(["run", "看看", "--workspace", workspace]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(
      /settings\.json 无效：hooks\.PreToolUse\[0\]\.command: 无效输入：期望 /,
    );
    expect(ran.stderr).not.toContain("Invalid input");
  });

  it("explain an invalid action of the model in Chinese", async () => {
    const ran = await runScript([{ action: { type: "tool_call", tool: "echo" } }]);
    expect(ran.code).toBe(1);
    const result = JSON.parse(ran.stdout);
    expect(result.code).toBe("invalid_action");
    expect(result.reason).toContain("input: 无效输入");
    expect(result.reason).not.toContain("Invalid input");
  });

  it("tell the model what is wrong with a tool input in Chinese", async () => {
    const ran = await runScript([call("run_command", { command: "ls" }), finish]);
    const result = JSON.parse(ran.stdout);
    const answer = result.messages.find((message: { role: string }) => message.role === "tool");
    expect(answer.error.code).toBe("invalid_input");
    expect(JSON.stringify(answer.error)).toContain("无效输入：期望 数组，实际接收 undefined");
  });
});
