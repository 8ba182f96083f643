import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { call, captureCli } from "./support/run-cli.ts";
import { NO_FINISH_GATE, runArgv, UNATTENDED, writeScript } from "./support/scripted-run.ts";
import { BIN } from "./support/spawn-bin.ts";
import { useWorkspaceAndHome } from "./support/workspace-home.ts";

// Real processes killed at an exact point: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
const CRASH = fileURLToPath(new URL("./support/crash-before-rename.ts", import.meta.url));

let base: string;
let workspace: string;
let home: string;
useWorkspaceAndHome("edit-crash-", async (made) => {
  ({ base, workspace, home } = made);
  await writeFile(join(workspace, "one.txt"), "one old\n");
  await writeFile(join(workspace, "two.txt"), "two old\n");
});

const env = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH });
const finish = { action: { type: "finish", summary: "写好了" } };
const both = call("apply_edits", {
  edits: [
    { path: "one.txt", content: "one new\n" },
    { path: "two.txt", content: "two new\n" },
  ],
});

/** Runs the script in a real CLI process that dies (SIGKILL) just before renaming `file` into place. */
async function runKilledBeforeRename(turns: unknown[], file: string, more: string[] = []) {
  const script = await writeScript(base, turns);
  const argv = runArgv("写两个文件", script, workspace, ...UNATTENDED, ...NO_FINISH_GATE, ...more);
  const child = spawn(process.execPath, ["--import", CRASH, BIN, ...argv], {
    stdio: "ignore",
    env: { ...env(), CRASH_BEFORE_RENAME: file },
  });
  const signal = await new Promise((resolve) => child.on("exit", (_code, sig) => resolve(sig)));
  expect(signal, "the run was killed at the fault point").toBe("SIGKILL");
  const runs = JSON.parse((await captureCli(["runs", "--json"], env())).stdout);
  expect(runs[0].status).toBe("unfinished");
  return runs[0].runId as string;
}

const read = (file: string) => readFile(join(workspace, file), "utf8");
const temps = async () => (await readdir(workspace)).filter((name) => name.endsWith(".tmp"));
const toolMessages = (result: { messages: Array<Record<string, unknown>> }) =>
  result.messages.filter((message) => message.role === "tool");

describe("an edit killed between its renames", HANG_GUARD, () => {
  it("is finished on resume: every file ends as the edit writes it, and the model is told what was completed", async () => {
    const runId = await runKilledBeforeRename([both, finish], "two.txt");
    // The crash left the edit half written, with the second file's temporary file beside it.
    expect([await read("one.txt"), await read("two.txt")]).toEqual(["one new\n", "two old\n"]);
    expect(await temps()).toHaveLength(1);

    const resumed = await captureCli(["resume", runId, "--json"], env());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([await read("one.txt"), await read("two.txt")]).toEqual(["one new\n", "two new\n"]);
    const [edit] = toolMessages(resumed.result);
    expect(edit).toMatchObject({ tool: "apply_edits", ok: true });
    expect(edit?.content).toContain("恢复时补写了 two.txt");
    expect(await temps()).toEqual([]);
    expect(resumed.result.evidence.changedFiles).toEqual(["one.txt", "two.txt"]);
    // The bytes kept for the resume are gone once the run has finished.
    expect(await readdir(resumed.result.runDir)).not.toContain("journal");
  });

  it("is rolled back on resume when another file changed since, and the model is told the truth", async () => {
    const runId = await runKilledBeforeRename([both, finish], "two.txt");
    await writeFile(join(workspace, "two.txt"), "changed by someone\n");

    const resumed = await captureCli(["resume", runId, "--json"], env());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([await read("one.txt"), await read("two.txt")]).toEqual([
      "one old\n",
      "changed by someone\n",
    ]);
    const [edit] = toolMessages(resumed.result);
    expect(edit).toMatchObject({ ok: false, error: { code: "stale_file" } });
    const message = (edit?.error as { message?: string } | undefined)?.message;
    expect(message).toContain("two.txt 既不是编辑前的内容");
    expect(message).toContain("已把 one.txt 恢复为编辑前的内容");
    expect(await temps()).toEqual([]);
  });
});

describe("a write killed before its rename", HANG_GUARD, () => {
  it("leaves no temporary file after resume, and no temporary file counts as a change", async () => {
    const big = "x".repeat(2_000_000);
    const runId = await runKilledBeforeRename(
      [call("write_file", { path: "big.txt", content: big }), finish],
      "big.txt",
      ["--allow-path", "big.txt"],
    );
    expect(await temps()).toHaveLength(1);

    const resumed = await captureCli(["resume", runId, "--json"], env());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.result.evidence.changedFiles).toEqual(["big.txt"]);
    expect(await temps()).toEqual([]);
    expect(await read("big.txt")).toBe(big);
    expect(resumed.stderr).toContain("删除了中断的写入留下的临时文件");
  });
});
