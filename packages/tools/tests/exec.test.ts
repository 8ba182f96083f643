import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runProcess } from "../src/sandbox/exec.ts";
import {
  type KillReason,
  OWN_PROCESS_GROUP,
  type ProcessGroup,
} from "../src/sandbox/process-group.ts";
import {
  currentMark,
  findMarkedProcesses,
  leftoverProcesses,
  markedEnv,
} from "./support/process-marks.ts";

const SH = "/bin/sh";
const run = (
  script: string,
  options: { timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal } = {},
  group?: ProcessGroup,
) =>
  runProcess(
    {
      argv: [SH, "-c", script],
      cwd: process.cwd(),
      env: markedEnv(),
      timeoutMs: options.timeoutMs ?? 10_000,
      maxOutputBytes: options.maxOutputBytes ?? 10_000,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
    group,
  );

describe("runProcess", () => {
  it("reports the exit code and both streams", async () => {
    const result = await run("echo out; echo err >&2; exit 3");
    expect(result).toEqual({
      exitCode: 3,
      signal: null,
      stdout: "out\n",
      stderr: "err\n",
      truncated: false,
      timedOut: false,
    });
  });

  it("runs argv without a shell: metacharacters are plain arguments", async () => {
    const result = await runProcess({
      argv: ["/bin/echo", "$HOME", "; touch pwned", "`id`"],
      cwd: process.cwd(),
      env: markedEnv(),
      timeoutMs: 10_000,
      maxOutputBytes: 1_000,
    });
    expect(result.stdout).toBe("$HOME ; touch pwned `id`\n");
  });

  it("reports the signal that killed the process", async () => {
    const result = await run("kill -TERM $$");
    expect(result).toMatchObject({ exitCode: null, signal: "SIGTERM", timedOut: false });
  });

  it("closes stdin: a command reading input sees end-of-file instead of hanging", async () => {
    const result = await run("cat; echo done", { timeoutMs: 5_000 });
    expect(result).toMatchObject({ exitCode: 0, stdout: "done\n", timedOut: false });
  });

  it("kills the whole process group on timeout: children and grandchildren too", async () => {
    const result = await run("sleep 100 & sh -c 'sleep 100 & sleep 100' & sleep 100", {
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    // The suite's after-each check proves it too; this names the case when it fails here.
    expect(await findMarkedProcesses(currentMark())).toEqual([]);
  });

  it("kills what the main process left running in the background when it exits", async () => {
    const result = await run("sleep 100 & echo started", { timeoutMs: 10_000 });
    expect(result).toMatchObject({ exitCode: 0, stdout: "started\n", timedOut: false });
    expect(await findMarkedProcesses(currentMark())).toEqual([]);
  });

  it("kills the group when the run's signal fires, and rejects with its reason", async () => {
    const controller = new AbortController();
    const pending = run("sleep 100 & sleep 100", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("用户取消")), 200);
    await expect(pending).rejects.toThrow("用户取消");
    expect(await findMarkedProcesses(currentMark())).toEqual([]);
  });

  it("does not start when the signal has already fired", async () => {
    const controller = new AbortController();
    controller.abort(new Error("早已取消"));
    await expect(run("echo never", { signal: controller.signal })).rejects.toThrow("早已取消");
  });

  it("caps output, keeping head and tail and saying how much was dropped", async () => {
    const result = await run("echo BEGIN; yes line | head -n 100000; echo END", {
      maxOutputBytes: 1_000,
    });
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith("BEGIN\n")).toBe(true);
    expect(result.stdout.endsWith("END\n")).toBe(true);
    const dropped = Number(/省略 (\d+) 字节/.exec(result.stdout)?.[1]);
    // Everything printed = kept + dropped.
    expect(dropped + 1_000).toBe("BEGIN\n".length + 100_000 * "line\n".length + "END\n".length);
  });

  it("passes only the given environment", async () => {
    const result = await run("env");
    const names = result.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("=")[0])
      .filter((name) => name !== "PWD" && name !== "SHLVL" && name !== "_");
    expect(names.sort()).toEqual(Object.keys(markedEnv()).sort());
  });
});

/** A group that does what `base` does and records each call. */
function recording(base: ProcessGroup) {
  const calls: { pid: number; reason: KillReason }[] = [];
  const group: ProcessGroup = {
    newGroup: base.newGroup,
    killAll(child, reason) {
      calls.push({ pid: child.pid, reason });
      base.killAll(child, reason);
    },
  };
  return { group, calls };
}

/** Kills only the child itself, in the caller's own process group. */
const CHILD_ONLY: ProcessGroup = {
  newGroup: false,
  killAll: (child) => {
    child.kill("SIGKILL");
  },
};

/** The process group and session of `pid`, from the fields after the command in /proc/<pid>/stat. */
function groupAndSession(stat: string): { pgrp: number; session: number } {
  const [, , pgrp, session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pgrp: Number(pgrp), session: Number(session) };
}

describe("runProcess's process group", () => {
  it("asks its group to kill the child on timeout and again when the child exits, with the child's pid", async () => {
    const { group, calls } = recording(OWN_PROCESS_GROUP);
    const result = await run("echo $$; exec sleep 100", { timeoutMs: 300 }, group);
    const pid = Number(result.stdout.trim());
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(calls).toEqual([
      { pid, reason: "timeout" },
      { pid, reason: "exit" },
    ]);
  });

  it("asks its group to kill on abort, then on exit", async () => {
    const { group, calls } = recording(OWN_PROCESS_GROUP);
    const controller = new AbortController();
    const pending = run("sleep 100", { signal: controller.signal }, group);
    setTimeout(() => controller.abort(new Error("用户取消")), 200);
    await expect(pending).rejects.toThrow("用户取消");
    expect(calls.map((call) => call.reason)).toEqual(["abort", "exit"]);
  });

  it("asks its group to kill once, on exit, when the child ends by itself", async () => {
    const { group, calls } = recording(OWN_PROCESS_GROUP);
    const result = await run("echo $$", {}, group);
    expect(calls).toEqual([{ pid: Number(result.stdout.trim()), reason: "exit" }]);
  });

  it("starts the child as the leader of a new session and group only when the group says so", async () => {
    const script = "echo $$; cat /proc/$$/stat";
    const own = await run(script, {}, OWN_PROCESS_GROUP);
    const ownPid = Number(own.stdout.split("\n")[0]);
    expect(groupAndSession(own.stdout)).toEqual({ pgrp: ownPid, session: ownPid });

    const shared = await run(script, {}, CHILD_ONLY);
    const sharedPid = Number(shared.stdout.split("\n")[0]);
    expect(groupAndSession(shared.stdout)).toEqual(
      groupAndSession(readFileSync("/proc/self/stat", "utf8")),
    );
    expect(groupAndSession(shared.stdout).pgrp).not.toBe(sharedPid);
  });

  it("leaves the background children running when its group kills only the child", async () => {
    const { group, calls } = recording(CHILD_ONLY);
    const pending = run("sleep 100 & exec sleep 100", { timeoutMs: 300 }, group);
    // The main sleep is killed, the background one lives on and holds the output pipes.
    await expect.poll(() => calls.map((call) => call.reason)).toEqual(["timeout", "exit"]);
    const survivors = await findMarkedProcesses(currentMark());
    expect(survivors).toHaveLength(1);
    for (const pid of survivors) process.kill(pid, "SIGKILL");
    await expect(pending).resolves.toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(await leftoverProcesses(currentMark())).toEqual([]);
  });

  it("rejects with what its group threw instead of crashing, after the group killed the child", async () => {
    const failing: ProcessGroup = {
      newGroup: true,
      killAll(child, reason) {
        OWN_PROCESS_GROUP.killAll(child, reason);
        throw new Error(`killAll failed on ${reason}`);
      },
    };
    await expect(run("sleep 100 & sleep 100", { timeoutMs: 300 }, failing)).rejects.toThrow(
      "killAll failed on timeout",
    );
    expect(await leftoverProcesses(currentMark())).toEqual([]);
  });
});
