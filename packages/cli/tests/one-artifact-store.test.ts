/**
 * One artifact store per run (docs/architecture.md, "How the CLI builds a run"): the run's
 * assembly makes it once over the run's `artifacts/` and hands it both to `run_command` and
 * `run_tests` (an output kept whole) and to the features (`read_artifact`, the context
 * budget); a child run makes its own in `subagents/<k>/artifacts/`. Every store the CLI
 * makes is counted here by its folder: two stores on one folder fail these tests.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { call, captureCli, runScripted, toolResults } from "./support/run-cli.ts";
import { NO_FINISH_GATE, UNATTENDED } from "./support/scripted-run.ts";

const made = vi.hoisted(() => ({ stores: [] as string[] }));
vi.mock("@coding-agent/tools", async (importOriginal) => {
  const tools = await importOriginal<typeof import("@coding-agent/tools")>();
  return {
    ...tools,
    createFileArtifactStore: (dir: string) => {
      made.stores.push(dir);
      return tools.createFileArtifactStore(dir);
    },
  };
});

// Real processes: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let base: string;
let workspace: string;
let home: string;
let savedHome: string | undefined;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-one-store-")));
  workspace = join(base, "ws");
  home = join(base, "home");
  await mkdir(workspace);
  savedHome = process.env.CODING_AGENT_HOME;
  process.env.CODING_AGENT_HOME = home;
  made.stores.length = 0;
});
afterEach(async () => {
  if (savedHome === undefined) delete process.env.CODING_AGENT_HOME;
  else process.env.CODING_AGENT_HOME = savedHome;
  await rm(base, { recursive: true, force: true });
});

/** A test command whose runner is not recognised, printing 3,000 rows: `run_tests` keeps it. */
const MANY_ROWS = `node -e "for (let i = 0; i < 3000; i++) console.log('row ' + i)"`;
/** 20,000 lines: with a context budget `run_command` returns them whole and the budget keeps them. */
const printMany = {
  argv: ["node", "-e", `for (let i = 0; i < 20000; i++) console.log("line " + i)`],
};
const flags = [
  ...UNATTENDED,
  ...NO_FINISH_GATE,
  "--allow-command",
  "node",
  "--max-observation-chars",
  "2000",
  "--test-command",
  MANY_ROWS,
  "--max-context-tokens",
  "100000",
];
/** A tool's kept output, then a context-budget artifact, each read back with read_artifact. */
const keepAndRead = [
  call("run_tests", {}),
  call("run_command", printMany),
  call("read_artifact", { id: "run_tests-1", startLine: 3_000, endLine: 3_000 }),
  call("read_artifact", { id: "call_2-1", startLine: 20_000, endLine: 20_000 }),
];
const finish = (summary = "看完了") => ({ action: { type: "finish", summary } });
const cliEnv = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH });

/** The artifacts the run named, in call order, and the two read_artifact pages. */
function expectKeptAndRead(result: { messages: Array<Record<string, unknown>> }): void {
  const [tested, ran, readTests, readCommand] = toolResults(result);
  expect(tested?.value).toMatchObject({ artifact: "run_tests-1" });
  expect(ran?.ok).toBe(true);
  expect(JSON.stringify(readTests?.value)).toContain("row 2999");
  expect(JSON.stringify(readCommand?.value)).toContain("line 19999");
}

describe("one artifact store per run", HANG_GUARD, () => {
  it("a run makes one store over its artifacts/, for the tools that keep output and for read_artifact", async () => {
    const { code, result, stderr } = await runScripted({
      turns: [...keepAndRead, finish()],
      flags,
      workspace,
      scriptDir: base,
    });
    expect(code, stderr).toBe(0);
    expectKeptAndRead(result);
    expect(made.stores).toEqual([join(result.runDir, "artifacts")]);
    expect((await readdir(join(result.runDir, "artifacts"))).sort()).toEqual([
      "call_2-1.txt",
      "run_tests-1.txt",
    ]);
    // A replay (its tools keep nothing) has a store of its own in a scratch folder, and names
    // the context budget's artifact as the run did: the same messages.
    made.stores.length = 0;
    const replay = await captureCli(["replay", result.runId, "--json"], cliEnv());
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.result.messages).toEqual(result.messages);
    expect(made.stores).toHaveLength(1);
    expect(made.stores[0]?.endsWith(".artifacts")).toBe(true);
  });

  it("a resumed run makes one store over the same artifacts/ and reads what the run kept before", async () => {
    const { code, result, stderr } = await runScripted({
      turns: [...keepAndRead, finish()],
      flags,
      workspace,
      scriptDir: base,
    });
    expect(code, stderr).toBe(0);
    // A crash before step 3's reply was logged: the reads of the two artifacts are lost.
    const stateFile = join(result.runDir, "state.jsonl");
    const lines = (await readFile(stateFile, "utf8")).trimEnd().split("\n");
    const at = lines.findIndex((line) => {
      const event = JSON.parse(line);
      return event.type === "model_reply" && event.step === 3;
    });
    expect(at).toBeGreaterThan(0);
    await writeFile(stateFile, `${lines.slice(0, at).join("\n")}\n`);
    made.stores.length = 0;
    const resumed = await captureCli(["resume", result.runId, "--json"], cliEnv());
    expect(resumed.code, resumed.stderr).toBe(0);
    expectKeptAndRead(resumed.result);
    expect(made.stores).toEqual([join(result.runDir, "artifacts")]);
  });

  it("a child run has its own one store in subagents/<k>/artifacts/", async () => {
    const goal = "看子 Agent 的输出";
    const { code, result, stderr } = await runScripted({
      turns: [
        call("spawn_agent", { goal }),
        finish("父运行看完了"),
        ...[...keepAndRead, finish()].map((turn) => ({ agent: goal, ...turn })),
      ],
      flags: [...flags, "--subagents", "1"],
      workspace,
      scriptDir: base,
    });
    expect(code, stderr).toBe(0);
    expect(toolResults(result)[0]?.value).toMatchObject({ status: "completed", code: "finished" });
    const child = join(result.runDir, "subagents", "1", "artifacts");
    expect(made.stores.sort()).toEqual([join(result.runDir, "artifacts"), child].sort());
    expect((await readdir(child)).sort()).toEqual(["call_2-1.txt", "run_tests-1.txt"]);
    expect(await readdir(join(result.runDir, "artifacts")).catch(() => [])).toEqual([]);
  });
});
