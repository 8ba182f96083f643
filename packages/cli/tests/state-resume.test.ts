import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseStateLog } from "../src/state/log.ts";
import { decideInDoubt } from "../src/state/resume.ts";
import { call, captureCli } from "./support/run-cli.ts";
import { runArgv, UNATTENDED, writeScript } from "./support/scripted-run.ts";
import { BIN } from "./support/spawn-bin.ts";
import { BUGGY, FIXED, useSumRepoAndHome } from "./support/sum-repo.ts";

// Real processes and files: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
const SECRET = "ghp_R3alLookingTokenValue1234567890abcd";

let base: string;
let workspace: string;
let home: string;
useSumRepoAndHome((made) => {
  ({ base, workspace, home } = made);
});

const finish = { action: { type: "finish", summary: "修好了" } };
const fix = call("edit_file", { path: "src/sum.js", old: "return a - b;", new: "return a + b;" });
const env = () => ({ CODING_AGENT_HOME: home, GITHUB_TOKEN: SECRET, PATH: process.env.PATH });

const cli = (argv: string[]) => captureCli(argv, env());

async function run(turns: unknown[], more: string[] = []) {
  const script = await writeScript(base, turns);
  return cli(runArgv("修复 sum", script, workspace, ...UNATTENDED, ...more));
}

const stateFile = (runId: string) => join(home, "runs", runId, "state.jsonl");
async function events(runId: string) {
  const read = parseStateLog(await readFile(stateFile(runId), "utf8"));
  if (!read.ok) throw new Error(read.message);
  return read.events;
}

/** Keeps lines up to the `n`-th tool intent, cutting its result and all after it. */
function beforeResultOfIntent(n: number) {
  let intents = 0;
  return (line: Record<string, unknown>) => {
    if (line.type === "tool_intent") intents += 1;
    return !(line.type === "tool_result" && intents === n);
  };
}

/** Cuts a finished run's log at its first line `keep` refuses: a crash right there. */
async function crashAt(runId: string, keep: (line: Record<string, unknown>) => boolean) {
  const lines = (await readFile(stateFile(runId), "utf8")).trimEnd().split("\n");
  const kept: string[] = [];
  for (const line of lines) {
    if (!keep(JSON.parse(line))) break;
    kept.push(line);
  }
  await writeFile(stateFile(runId), `${kept.join("\n")}\n`);
}

describe("state.jsonl", HANG_GUARD, () => {
  it("numbers every transition from 1 without gaps; an intent comes before its result", async () => {
    const { result } = await run([call("run_tests", {}), fix, call("run_tests", {}), finish]);
    expect(result.status).toBe("completed");
    const log = await events(result.runId);
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    expect(log.map((event) => event.type)).toEqual([
      "run_started",
      "model_reply",
      "tool_intent",
      "tool_result",
      "model_reply",
      "tool_intent",
      "tool_result",
      "model_reply",
      "tool_intent",
      "tool_result",
      "model_reply",
      "run_finished",
    ]);
    const started = log[0] as Record<string, unknown>;
    expect(started).toMatchObject({ runId: result.runId, goal: "修复 sum", workspace });
    expect(started.startVersion).toBe(result.evidence.startVersion);
    const intent = log.find((event) => event.type === "tool_intent") as Record<string, unknown>;
    expect(intent.key).toMatch(/^[0-9a-f]{64}$/);
    const results = log.filter((event) => event.type === "tool_result") as Array<
      Record<string, unknown>
    >;
    expect(results.at(-1)?.version).toBe(result.evidence.endVersion);
    expect(log.at(-1)).toMatchObject({
      type: "run_finished",
      status: "completed",
      code: "finished",
    });
  });

  it("holds no secret: not from the environment, not from a file the run read, not in any field", async () => {
    await writeFile(join(workspace, ".env"), `GITHUB_TOKEN=${SECRET}\n`);
    const { result } = await run(
      [
        call("read_file", { path: ".env" }),
        call("echo", { text: `key ${SECRET}` }),
        call("write_file", { path: "src/notes.txt", content: SECRET }),
        { action: { type: "finish", summary: `done ${SECRET}` } },
      ],
      ["--finish-gate", "none"],
    );
    for (const file of await readdir(result.runDir, { recursive: true })) {
      const text = await readFile(join(result.runDir, String(file))).catch(() => Buffer.from(""));
      expect(text.toString("utf8"), String(file)).not.toContain(SECRET);
    }
    expect(await readFile(stateFile(result.runId), "utf8")).toContain("[REDACTED");
  });

  it("is listed by coding-agent runs, newest first, with its status", async () => {
    const first = await run([finish], ["--finish-gate", "none"]);
    const second = await run([finish, finish, finish]);
    const { code, stdout } = await cli(["runs", "--json"]);
    expect(code).toBe(0);
    const runs = JSON.parse(stdout);
    expect(runs.map((r: { runId: string }) => r.runId)).toEqual([
      second.result.runId,
      first.result.runId,
    ]);
    expect(runs[0]).toMatchObject({ goal: "修复 sum", status: "failed" });
    expect(runs[1]).toMatchObject({ status: "completed" });
    expect((await cli(["runs"])).stdout).toContain(first.result.runId);
  });
});

describe("decideInDoubt", () => {
  const file = { path: "a.ts", before: "h0", after: "h1" };
  it.each([
    ["read_file", undefined, [], "run"],
    ["run_tests", undefined, [], "run"],
    ["run_command", undefined, [], "interrupted"],
    ["an_unknown_tool", undefined, [], "interrupted"],
    ["edit_file", [file], ["h1"], "applied"],
    ["edit_file", [file], ["h0"], "run"],
    ["edit_file", [file], ["h2"], "stale"],
    ["edit_file", [file], [null], "stale"],
    ["apply_edits", [file, { path: "b.ts", before: null, after: "h3" }], ["h1", null], "stale"],
    ["write_file", [{ path: "b.ts", before: null, after: "h3" }], [null], "run"],
    ["edit_file", undefined, [], "run"],
  ] as const)("%s with files %j now %j → %s", (tool, files, now, expected) => {
    expect(decideInDoubt(tool, files, now)).toBe(expected);
  });
});

describe("coding-agent resume", HANG_GUARD, () => {
  const script = [call("run_tests", {}), fix, call("run_tests", {}), finish];

  it("gives back a recorded finish that was rejected as a finish, and goes on from there", async () => {
    // Step 1 finishes without tests (rejected); the crash comes after the rejection.
    const { result } = await run([
      finish,
      call("run_tests", {}),
      fix,
      call("run_tests", {}),
      finish,
    ]);
    expect(result.status).toBe("completed");
    await crashAt(result.runId, (line) => line.type !== "tool_intent");
    const log = await events(result.runId);
    expect(log.map((event) => event.type)).toEqual([
      "run_started",
      "model_reply",
      "finish_rejected",
      "model_reply",
    ]);
    await writeFile(join(workspace, "src/sum.js"), BUGGY);
    const resumed = await cli(["resume", result.runId, "--json"]);
    expect(resumed.result).toMatchObject({ status: "completed", steps: 5 });
  });

  it("refuses a finished run with exit 2, naming its status", async () => {
    const { result } = await run(script);
    const { code, stderr } = await cli(["resume", result.runId]);
    expect(code).toBe(2);
    expect(stderr).toContain("已经结束（completed，finished）");
  });

  it("refuses an unknown run and a run id that names another folder", async () => {
    expect((await cli(["resume", "nope"])).code).toBe(2);
    const { code, stderr } = await cli(["resume", "../x"]);
    expect(code).toBe(2);
    expect(stderr).toContain("不是有效的运行 ID");
  });

  it("records an edit in doubt whose file is already edited as applied, never applying it twice", async () => {
    const { result } = await run(script);
    // Crash after the edit's intent reached the disk and the edit was written, before its result.
    await crashAt(result.runId, beforeResultOfIntent(2));
    const resumed = await cli(["resume", result.runId, "--json"]);
    expect(resumed.code).toBe(0);
    expect(resumed.result).toMatchObject({
      status: "completed",
      runId: result.runId,
      steps: 4,
      toolCalls: 3,
    });
    const edit = resumed.result.messages.filter(
      (m: Record<string, unknown>) => m.role === "tool",
    )[1];
    expect(edit).toMatchObject({ tool: "edit_file", ok: true });
    expect(edit.content).toContain("没有再写一次");
    expect(await readFile(join(workspace, "src/sum.js"), "utf8")).toBe(FIXED);
    const log = await events(result.runId);
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    expect(log.filter((event) => event.type === "resumed")).toHaveLength(1);
    expect(log.at(-1)).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("applies an edit in doubt whose file is still as before, and answers stale_file for anything else", async () => {
    for (const [content, expected] of [
      [BUGGY, "applied now"],
      ["export const other = 1;\n", "stale_file"],
    ] as const) {
      await writeFile(join(workspace, "src/sum.js"), BUGGY);
      const { result } = await run(script);
      await crashAt(result.runId, beforeResultOfIntent(2));
      await writeFile(join(workspace, "src/sum.js"), content);
      const resumed = await cli(["resume", result.runId, "--json"]);
      const edit = resumed.result.messages.filter(
        (m: Record<string, unknown>) => m.role === "tool",
      )[1];
      if (expected === "applied now") {
        expect(edit, expected).toMatchObject({ ok: true });
        expect(await readFile(join(workspace, "src/sum.js"), "utf8")).toBe(FIXED);
        expect(resumed.result.status).toBe("completed");
      } else {
        expect(edit, expected).toMatchObject({ ok: false, error: { code: "stale_file" } });
        expect(await readFile(join(workspace, "src/sum.js"), "utf8")).toBe(content);
      }
    }
  });

  it("drops a torn last line with a warning and goes on", async () => {
    const { result } = await run(script);
    let intents = 0;
    await crashAt(result.runId, (line) => {
      if (line.type === "tool_intent") intents += 1;
      return intents < 3;
    });
    await writeFile(
      stateFile(result.runId),
      `${await readFile(stateFile(result.runId), "utf8")}{"seq":9,"type":"tool_in`,
    );
    const resumed = await cli(["resume", result.runId, "--json"]);
    expect(resumed.stderr).toContain("最后一行不完整");
    expect(resumed.result).toMatchObject({ status: "completed" });
    const log = await events(result.runId);
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
  });

  it("continues a run killed mid-command: the command is answered interrupted, never run again, no edit twice", async () => {
    const marker = join(base, "ran.txt");
    const slow = call("run_command", {
      argv: [
        "node",
        "-e",
        `require('fs').appendFileSync(${JSON.stringify(marker)}, 'x'); setTimeout(() => {}, 60000)`,
      ],
    });
    const script = await writeScript(base, [fix, slow, call("run_tests", {}), finish]);
    const argv = runArgv("修复 sum", script, workspace, ...UNATTENDED, "--allow-command", "node");
    const child = spawn(process.execPath, [BIN, ...argv], {
      detached: true,
      stdio: "ignore",
      env: env(),
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    // Kill the whole process group once the command has started (its marker file exists).
    for (let waited = 0; waited < 60_000; waited += 50) {
      if (
        await readFile(marker).then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    process.kill(-(child.pid ?? 0), "SIGKILL");
    await exited;
    const listed = JSON.parse((await cli(["runs", "--json"])).stdout);
    expect(listed).toHaveLength(1);
    expect(listed[0].status).toBe("unfinished");

    const resumed = await cli(["resume", listed[0].runId, "--json"]);
    expect(resumed.code).toBe(0);
    const tools = resumed.result.messages.filter((m: Record<string, unknown>) => m.role === "tool");
    expect(tools.map((m: Record<string, unknown>) => m.tool)).toEqual([
      "edit_file",
      "run_command",
      "run_tests",
    ]);
    expect(tools[1]).toMatchObject({ ok: false, error: { code: "interrupted" } });
    expect(await readFile(marker, "utf8")).toBe("x");
    expect(await readFile(join(workspace, "src/sum.js"), "utf8")).toBe(FIXED);
    expect(resumed.result.status).toBe("completed");
  });
});
