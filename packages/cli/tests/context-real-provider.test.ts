import { mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeModelServer, startFakeModelServer } from "@coding-agent/providers/testing";
import { countTokens } from "gpt-tokenizer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureCli, openaiRun } from "./support/run-cli.ts";

// A real loopback API and real processes: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
const KEY = `sk-proj-${"Context0".repeat(4)}`;
const SECRET = "ghp_SecretInAHugeOutput1234567890abcdefgh";
const BUDGET = 6_000;

let workspace: string;
let home: string;
let server: FakeModelServer | undefined;
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "context-ws-")));
  home = await mkdtemp(join(tmpdir(), "context-home-"));
  // A long AGENTS.md: the system prompt is part of every request, and of the budget.
  await writeFile(join(workspace, "AGENTS.md"), `${"仓库规则：先跑测试再提交。\n".repeat(150)}`);
  await writeFile(
    join(workspace, "big.txt"),
    `${"第 n 行：一些很长的内容 lorem ipsum dolor sit amet\n".repeat(5_000)}`,
  );
});
afterEach(async () => {
  await server?.close();
  await rm(workspace, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const print200k = (tag: string) => ({
  name: "run_command",
  input: {
    argv: [
      "node",
      "-e",
      `process.stdout.write(${JSON.stringify(`${tag} ${SECRET}\n`)} + "output line lorem ipsum dolor sit amet 12345\\n".repeat(4500) + "end ${tag}\\n")`,
    ],
  },
});

describe("a real provider under --max-context-tokens", HANG_GUARD, () => {
  it("never receives a request over the budget, system prompt included, however large the tool outputs", async () => {
    server = await startFakeModelServer({
      apiKey: KEY,
      script: [
        { calls: [print200k("first")] },
        { calls: [{ name: "read_file", input: { path: "big.txt" } }] },
        { calls: [print200k("second")] },
        { calls: [print200k("third")] },
        { text: "看完了" },
      ],
    });
    const { code, result } = await captureCli(
      openaiRun(
        "看看大输出",
        server.openaiBaseUrl,
        "--workspace",
        workspace,
        "--allow-command",
        "node",
        "--approval",
        "auto",
        "--sandbox",
        "none",
        "--max-context-tokens",
        String(BUDGET),
        "--max-observation-chars",
        "2000",
      ),
      {
        OPENAI_API_KEY: KEY,
        GITHUB_TOKEN: SECRET,
        CODING_AGENT_HOME: home,
        PATH: process.env.PATH,
      },
    );
    expect(code, result.reason).toBe(0);
    expect(server.requests).toHaveLength(5);
    for (const [index, request] of server.requests.entries()) {
      const body = request.body as { messages: unknown[]; tools?: unknown[] };
      const tokens = countTokens(
        JSON.stringify({ messages: body.messages, tools: body.tools ?? [] }),
      );
      expect(tokens, `request ${index + 1}`).toBeLessThanOrEqual(BUDGET);
      expect(JSON.stringify(body), `request ${index + 1}`).not.toContain(SECRET);
      // The system prompt is never compacted.
      expect(JSON.stringify(body.messages[0]), `request ${index + 1}`).toContain("仓库规则");
    }
    const artifacts = await readdir(join(result.runDir, "artifacts"));
    expect(artifacts.length).toBeGreaterThanOrEqual(3);
  });
});
