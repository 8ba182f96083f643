/**
 * Kept, not thrown away (docs/contracts.md §8): an output of `run_command` or `run_tests` over
 * the observation budget is stored whole (redacted) in the run's `artifacts/`, the result names
 * it, and `read_artifact` — offered to the model only once a result names an artifact — pages
 * through it. Other tools keep their own paging and the loop's cap as before.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeModelServer, startFakeModelServer } from "@coding-agent/providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, captureCli, openaiRun, runScripted, toolResults } from "./support/run-cli.ts";
import { NO_FINISH_GATE, UNATTENDED } from "./support/scripted-run.ts";

// Real processes and a loopback API: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
const KEY = `sk-proj-${"Artifact0".repeat(4)}`;
const SECRET = "ghp_SecretInAHugeOutput1234567890abcdefgh";

let base: string;
let workspace: string;
let home: string;
let server: FakeModelServer | undefined;
let savedHome: string | undefined;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-artifacts-")));
  workspace = join(base, "ws");
  home = join(base, "home");
  await mkdir(workspace);
  savedHome = process.env.CODING_AGENT_HOME;
  process.env.CODING_AGENT_HOME = home;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (savedHome === undefined) delete process.env.CODING_AGENT_HOME;
  else process.env.CODING_AGENT_HOME = savedHome;
  await rm(base, { recursive: true, force: true });
});

/** A command printing 20,000 numbered lines (~230 kB) with a secret in the middle. */
const printMany = {
  argv: [
    "node",
    "-e",
    `for (let i = 0; i < 20000; i++) console.log("line " + i + (i === 10000 ? " ${SECRET}" : ""))`,
  ],
};
const flags = [
  ...UNATTENDED,
  ...NO_FINISH_GATE,
  "--allow-command",
  "node",
  "--max-observation-chars",
  "2000",
];

describe("an output over the budget is kept as an artifact", HANG_GUARD, () => {
  it("run_command's whole output is stored redacted, named in the result, and read back page by page", async () => {
    const { code, result } = await runScripted({
      turns: [
        call("run_command", printMany),
        call("read_artifact", { id: "run_command-1", startLine: 19_990, endLine: 20_000 }),
        { action: { type: "finish", summary: "看完了" } },
      ],
      flags,
      workspace,
      scriptDir: base,
    });
    expect(code).toBe(0);
    const [ran, read] = toolResults(result);
    expect(ran?.value).toMatchObject({
      truncated: true,
      artifact: "run_command-1",
      note: expect.stringContaining('read_artifact {"id":"run_command-1"'),
    });
    expect(read?.ok).toBe(true);
    expect(JSON.stringify(read?.value)).toContain("line 19999");
    const stored = await readFile(join(result.runDir, "artifacts", "run_command-1.txt"), "utf8");
    expect(stored.split("\n").filter((line) => line.startsWith("line "))).toHaveLength(20_000);
    expect(stored).toContain("line 10000 [REDACTED:");
    expect(stored).not.toContain(SECRET);
  });

  it("a run whose outputs fit stores nothing", async () => {
    const { code, result } = await runScripted({
      turns: [
        call("run_command", { argv: ["node", "-e", "console.log('hi')"] }),
        { action: { type: "finish", summary: "看完了" } },
      ],
      flags,
      workspace,
      scriptDir: base,
    });
    expect(code).toBe(0);
    expect(toolResults(result)[0]?.value).not.toHaveProperty("artifact");
    expect(await readdir(join(result.runDir, "artifacts")).catch(() => [])).toEqual([]);
  });

  it("a real model is offered read_artifact only from the request after a result names an artifact", async () => {
    server = await startFakeModelServer({
      apiKey: KEY,
      script: [
        { calls: [{ name: "run_command", input: { argv: ["node", "-e", "console.log(1)"] } }] },
        { calls: [{ name: "run_command", input: printMany }] },
        { calls: [{ name: "read_artifact", input: { id: "run_command-1" } }] },
        { text: "看完了" },
      ],
    });
    const { code, result } = await captureCli(
      openaiRun("看看大输出", server.openaiBaseUrl, "--workspace", workspace, ...flags),
      { OPENAI_API_KEY: KEY, CODING_AGENT_HOME: home, PATH: process.env.PATH },
    );
    expect(code).toBe(0);
    expect(result.status).toBe("completed");
    const offered = server.requests.map((request) =>
      ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map(
        (tool) => tool.function.name,
      ),
    );
    expect(offered).toHaveLength(4);
    expect(offered.map((names) => names.includes("read_artifact"))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(offered[0]).toContain("run_command");
  });
});
