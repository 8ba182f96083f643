/**
 * One owner per run (docs/contracts.md §8): a run holds a lock in its folder while it runs or
 * resumes; a second `resume` is refused with exit 2 naming the owner's pid, and a lock
 * whose process is gone is taken over. Attacked with two resumes at once, a resume of a
 * live run, a stale lock, and many acquirers racing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseStateLog } from "../src/state/log.ts";
import { acquireRunLock, RUN_LOCK_FILE } from "../src/state/run-lock.ts";
import { call, captureCli } from "./support/run-cli.ts";
import { NO_FINISH_GATE, runArgv, UNATTENDED, writeScript } from "./support/scripted-run.ts";
import { BIN } from "./support/spawn-bin.ts";
import { useSumRepoAndHome } from "./support/sum-repo.ts";

// Real processes and files: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };

let base: string;
let workspace: string;
let home: string;
useSumRepoAndHome((made) => {
  ({ base, workspace, home } = made);
});

const env = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH });
const finish = { action: { type: "finish", summary: "好了" } };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pid that certainly belongs to no process: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid ?? 0;
}

function startBin(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: env(),
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

describe("acquireRunLock", () => {
  it("refuses a second holder while the first holds, naming the holder's pid", async () => {
    const first = await acquireRunLock(home);
    expect(first.ok).toBe(true);
    expect(await acquireRunLock(home)).toEqual({ ok: false, reason: "held", pid: process.pid });
    if (first.ok) await first.lock.release();
    expect((await acquireRunLock(home)).ok).toBe(true);
  });

  it("takes over a lock whose process is gone", async () => {
    const stale = JSON.stringify({ pid: await deadPid(), token: "old", since: "then" });
    await writeFile(join(home, RUN_LOCK_FILE), stale);
    const taken = await acquireRunLock(home);
    expect(taken.ok).toBe(true);
    expect(await readFile(join(home, RUN_LOCK_FILE), "utf8")).toContain(`"pid":${process.pid}`);
  });

  it("lets exactly one of many racing acquirers take a stale lock", async () => {
    const stale = JSON.stringify({ pid: await deadPid(), token: "old", since: "then" });
    await writeFile(join(home, RUN_LOCK_FILE), stale);
    const results = await Promise.all(Array.from({ length: 16 }, () => acquireRunLock(home)));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });

  it("releases only its own lock, never one taken over from it", async () => {
    const first = await acquireRunLock(home);
    if (!first.ok) throw new Error("not taken");
    const other = JSON.stringify({ pid: process.pid, token: "other", since: "now" });
    await writeFile(join(home, RUN_LOCK_FILE), other);
    await first.lock.release();
    expect(await readFile(join(home, RUN_LOCK_FILE), "utf8")).toBe(other);
  });
});

describe("coding-agent resume, one owner", HANG_GUARD, () => {
  it("refuses (exit 2) a resume of a run that is still running, naming its process", async () => {
    const script = await writeScript(base, [call("sleep", { ms: 60_000 }), finish]);
    const running = startBin(runArgv("等一会", script, workspace, ...NO_FINISH_GATE));
    try {
      const runId = await waitForRunId(running.child);
      const resumed = await captureCli(["resume", runId], env());
      expect(resumed.code).toBe(2);
      expect(resumed.stderr).toContain(String(running.child.pid));
      expect(resumed.stderr).toContain("正由进程");
    } finally {
      running.child.kill("SIGKILL");
      await running.exited;
    }
  });

  it("runs two resumes started together once: one exits 2, the command runs once, seqs stay unique", async () => {
    const marker = join(base, "ran.txt");
    const release = join(base, "release");
    // The command holds its resume until the test releases it, so the two overlap for sure.
    const slow = call("run_command", {
      argv: [
        "node",
        "-e",
        `const fs=require('fs');fs.appendFileSync(${JSON.stringify(marker)},'x');const t=setInterval(()=>{if(fs.existsSync(${JSON.stringify(release)}))clearInterval(t)},20)`,
      ],
    });
    const script = await writeScript(base, [call("echo", { text: "a" }), slow, finish]);
    await writeFile(release, "");
    const flags = [...NO_FINISH_GATE, ...UNATTENDED, "--allow-command", "node"];
    const original = await captureCli(runArgv("跑一次", script, workspace, ...flags), env());
    expect(original.code).toBe(0);
    const runId: string = original.result.runId;
    // A crash right after the echo: the command is not in the log yet.
    await cutAfterFirstResult(join(home, "runs", runId, "state.jsonl"));
    await unlink(marker);
    await unlink(release);

    const a = startBin(["resume", runId, "--json"]);
    const b = startBin(["resume", runId, "--json"]);
    let firstExit: number | null | undefined;
    void Promise.race([a.exited, b.exited]).then((code) => {
      firstExit = code;
    });
    // Until one resume gives up, or both have run the command (the bug): then let them finish.
    while (firstExit === undefined && (await readFile(marker, "utf8").catch(() => "")) !== "xx")
      await pause(50);
    await writeFile(release, "");
    const codes = [await a.exited, await b.exited].sort();
    expect(codes).toEqual([0, 2]);
    expect(await readFile(marker, "utf8")).toBe("x");
    const refused = [a, b].find((r) => r.stderr().includes("正由进程"));
    const owner = [a, b].find((r) => r !== refused);
    expect(refused?.stderr()).toContain(String(owner?.child.pid));
    const read = parseStateLog(await readFile(join(home, "runs", runId, "state.jsonl"), "utf8"));
    if (!read.ok) throw new Error(read.message);
    expect(read.events.map((event) => event.seq)).toEqual(read.events.map((_, i) => i + 1));
    expect(existsSync(join(home, "runs", runId, RUN_LOCK_FILE))).toBe(false);
  });

  it("takes over the lock of a run whose process was killed, and finishes it", async () => {
    const script = await writeScript(base, [call("echo", { text: "a" }), finish]);
    const original = await captureCli(
      runArgv("跑一次", script, workspace, ...NO_FINISH_GATE),
      env(),
    );
    const runId: string = original.result.runId;
    await cutAfterFirstResult(join(home, "runs", runId, "state.jsonl"));
    const stale = JSON.stringify({ pid: await deadPid(), token: "killed", since: "then" });
    await writeFile(join(home, "runs", runId, RUN_LOCK_FILE), stale);
    const resumed = await captureCli(["resume", runId, "--json"], env());
    expect(resumed.code).toBe(0);
    expect(resumed.result.status).toBe("completed");
  });
});

/** Keeps a log's lines up to and including its first tool_result. */
async function cutAfterFirstResult(file: string) {
  const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
  const end = lines.findIndex((line) => JSON.parse(line).type === "tool_result");
  await writeFile(file, `${lines.slice(0, end + 1).join("\n")}\n`);
}

/** The run id of a running `run`, once its state log has a tool intent. */
async function waitForRunId(child: ChildProcess): Promise<string> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`run exited ${child.exitCode}`);
    const runs = await captureCli(["runs", "--json"], env());
    const listed = runs.stdout.startsWith("[") ? JSON.parse(runs.stdout) : [];
    const runId: string | undefined = listed[0]?.runId;
    if (runId !== undefined) {
      const log = await readFile(join(home, "runs", runId, "state.jsonl"), "utf8").catch(() => "");
      if (log.includes('"tool_intent"')) return runId;
    }
    await pause(50);
  }
}
