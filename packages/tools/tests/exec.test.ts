import { describe, expect, it } from "vitest";
import { runProcess } from "../src/sandbox/exec.ts";
import { currentMark, findMarkedProcesses, markedEnv } from "./support/process-marks.ts";

const SH = "/bin/sh";
const run = (
  script: string,
  options: { timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal } = {},
) =>
  runProcess({
    argv: [SH, "-c", script],
    cwd: process.cwd(),
    env: markedEnv(),
    timeoutMs: options.timeoutMs ?? 10_000,
    maxOutputBytes: options.maxOutputBytes ?? 10_000,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });

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
