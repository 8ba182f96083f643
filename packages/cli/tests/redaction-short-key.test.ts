/**
 * No mask ever makes a run's record unreadable: a run made with a key too short or too
 * common to be a secret (`OPENAI_API_KEY=x`, as lesson 38 allows for a local server, or
 * `ollama`) keeps its goal and its options' names as written, and replays and resumes.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModelServer } from "@coding-agent/providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureCli } from "./support/run-cli.ts";

// A loopback model server and real files: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let base: string;
let home: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "coding-agent-shortkey-"));
  home = await mkdtemp(join(tmpdir(), "coding-agent-home-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

describe.each(["x", "ollama"])("a run made with OPENAI_API_KEY=%s", HANG_GUARD, (key) => {
  const env = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH, OPENAI_API_KEY: key });
  const goal = `用 echo 说 ${key}，然后结束（maxSteps 足够）`;

  /** The run, against a loopback server that answers `extra` more turns after it (for a resume). */
  async function original(extra: number) {
    const server = await startFakeModelServer({
      script: [
        { calls: [{ name: "echo", input: { text: `hello ${key}` } }] },
        ...Array.from({ length: extra + 1 }, () => ({ text: "好了" })),
      ],
    });
    const argv = [
      "run",
      goal,
      "--provider",
      "openai",
      "--model",
      "gpt-4.1-mini",
      "--base-url",
      server.openaiBaseUrl,
      "--workspace",
      base,
      "--finish-gate",
      "none",
      "--json",
    ];
    return { server, run: await captureCli(argv, env()) };
  }

  it("keeps its goal and option names in state.jsonl, and replays to the same result", async () => {
    const { server, run } = await original(0);
    await server.close();
    expect(run.result).toMatchObject({ status: "completed" });
    const log = await readFile(join(home, "runs", run.result.runId, "state.jsonl"), "utf8");
    expect(log).not.toContain("REDACTED:env");
    const started = JSON.parse(log.split("\n")[0] ?? "{}");
    expect(started.goal).toBe(goal);
    expect(Object.keys(started.options.limits)).toContain("maxSteps");
    const replayed = await captureCli(["replay", run.result.runId, "--json"], env());
    expect(replayed.stderr).not.toContain("Unrecognized");
    expect(replayed.code).toBe(run.code);
    expect(replayed.result).toMatchObject({ status: "completed", steps: run.result.steps });
  });

  it("resumes after a crash", async () => {
    const { server, run } = await original(1);
    try {
      const file = join(home, "runs", run.result.runId, "state.jsonl");
      const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
      const end = lines.findIndex((line) => JSON.parse(line).type === "tool_result");
      await writeFile(file, `${lines.slice(0, end + 1).join("\n")}\n`);
      const resumed = await captureCli(["resume", run.result.runId, "--json"], env());
      expect(resumed.stderr).not.toContain("Unrecognized");
      expect(resumed.code).toBe(0);
      expect(resumed.result.status).toBe("completed");
    } finally {
      await server.close();
    }
  });
});
