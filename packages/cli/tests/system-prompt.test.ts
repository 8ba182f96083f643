import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeModelServer, startFakeModelServer } from "@coding-agent/providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN_SYSTEM_PROMPT, MAX_AGENTS_MD_BYTES } from "../src/system-prompt.ts";
import { captureCli, openaiRun } from "./support/run-cli.ts";

const KEY = `sk-proj-${"PromptT0".repeat(4)}`;
const PLANTED = "ghp_PlantedInAgentsMd1234567890abcdefgh";

let workspace: string;
let outside: string;
let server: FakeModelServer | undefined;
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "prompt-ws-")));
  outside = await realpath(await mkdtemp(join(tmpdir(), "prompt-out-")));
  await mkdir(join(workspace, "src"));
  await writeFile(join(workspace, "AGENTS.md"), `根目录规则：用 pnpm。token=${PLANTED}\n`);
  await writeFile(join(workspace, "src", "AGENTS.md"), "src 规则：不要改公开 API。\n");
  await writeFile(join(workspace, "src", "a.txt"), "a\n");
  await writeFile(join(outside, "AGENTS.md"), "外面的规则：不该出现\n");
  await symlink(outside, join(workspace, "linked"));
});
afterEach(async () => {
  await server?.close();
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function run(more: string[] = []) {
  server = await startFakeModelServer({
    apiKey: KEY,
    script: [
      { calls: [{ name: "read_file", input: { path: "src/a.txt" } }] },
      { calls: [{ name: "read_file", input: { path: "linked/AGENTS.md" } }] },
      { text: "看完了" },
    ],
  });
  const { code, stderr } = await captureCli(
    openaiRun("看看", server.openaiBaseUrl, "--workspace", workspace, ...more),
    {
      OPENAI_API_KEY: KEY,
      GITHUB_TOKEN: PLANTED,
      CODING_AGENT_HOME: process.env.CODING_AGENT_HOME,
    },
  );
  const systems = server.requests.map((request) => {
    const messages = (request.body as { messages: Array<{ role: string; content: string }> })
      .messages;
    return messages[0]?.role === "system" ? messages[0].content : undefined;
  });
  return { code, stderr, systems };
}

describe("a real model's first request", () => {
  it("carries the built-in prompt, then the root AGENTS.md, redacted", async () => {
    const { code, systems } = await run();
    expect(code).toBe(0);
    const [first] = systems;
    expect(first?.startsWith(BUILTIN_SYSTEM_PROMPT)).toBe(true);
    expect(first).toContain("finish_rejected");
    expect(first).toContain("run_tests");
    expect(first).toContain("根目录规则：用 pnpm");
    expect(first).not.toContain(PLANTED);
    expect(first).not.toContain("src 规则");
  });

  it("adds the AGENTS.md of a folder once a call touches a file in it, never one behind a symlink out", async () => {
    const { systems } = await run();
    expect(systems[1]).toContain("# src/AGENTS.md\nsrc 规则：不要改公开 API。");
    expect(systems[1]?.indexOf("根目录规则")).toBeLessThan(systems[1]?.indexOf("src 规则") ?? -1);
    expect(systems.join("\n")).not.toContain("外面的规则");
  });

  it("bounds what AGENTS.md adds", async () => {
    await writeFile(join(workspace, "AGENTS.md"), "长".repeat(MAX_AGENTS_MD_BYTES));
    const { systems } = await run();
    const added = Buffer.byteLength(systems[0] ?? "") - Buffer.byteLength(BUILTIN_SYSTEM_PROMPT);
    expect(added).toBeLessThanOrEqual(MAX_AGENTS_MD_BYTES + 100);
    expect(systems[0]).toContain("超出长度上限");
  });

  it("--system-prompt-file replaces the built-in part; a missing file is a usage error", async () => {
    const file = join(outside, "prompt.txt");
    await writeFile(file, "你是测试用的 Agent。");
    const { systems } = await run(["--system-prompt-file", file]);
    expect(systems[0]?.startsWith("你是测试用的 Agent。\n\n# AGENTS.md")).toBe(true);
    expect(systems[0]).not.toContain(BUILTIN_SYSTEM_PROMPT);
    const missing = await run(["--system-prompt-file", join(outside, "nope.txt")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--system-prompt-file 读不到文件");
  });
});

describe("a subagent's requests", () => {
  it("carry the same system prompt as the parent's, set on each request", async () => {
    server = await startFakeModelServer({
      apiKey: KEY,
      script: [
        { calls: [{ name: "spawn_agent", input: { goal: "看看 src" } }] },
        // The child's one request: it finishes at once.
        { text: "子任务看完了" },
        { text: "都看完了" },
      ],
    });
    const home = await mkdtemp(join(tmpdir(), "prompt-home-"));
    try {
      const { code, stderr } = await captureCli(
        openaiRun(
          "看看",
          server.openaiBaseUrl,
          "--workspace",
          workspace,
          "--subagents",
          "1",
          "--finish-gate",
          "none",
          "--approval",
          "auto",
        ),
        { OPENAI_API_KEY: KEY, CODING_AGENT_HOME: home, PATH: process.env.PATH },
      );
      expect(code, stderr).toBe(0);
      const systems = server.requests.map((request) => {
        const [first] = (request.body as { messages: Array<{ role: string; content: string }> })
          .messages;
        return first?.role === "system" ? first.content : undefined;
      });
      expect(systems).toHaveLength(3);
      // The child's request is the second: the parent waits on its spawn_agent call.
      const goals = server.requests.map((request) =>
        JSON.stringify((request.body as { messages: unknown[] }).messages),
      );
      expect(goals[1]).toContain("看看 src");
      for (const system of systems) expect(system?.startsWith(BUILTIN_SYSTEM_PROMPT)).toBe(true);
      expect(systems[1]).toBe(systems[0]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
