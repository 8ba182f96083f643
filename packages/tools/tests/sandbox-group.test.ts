import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildBwrapArgv, bwrapCommand } from "../src/sandbox/bwrap.ts";
import { runProcess } from "../src/sandbox/exec.ts";
import { killMarked, newSandboxMarker, sandboxGroup } from "../src/sandbox/sandbox-group.ts";
import { bwrapForTests, requireBwrap } from "./support/bwrap.ts";
import { currentMark, leftoverProcesses, markedEnv } from "./support/process-marks.ts";

/** The commands' environment: PATH and the file's mark, so the suite finds what outlives a test. */
const ENV = markedEnv();

/**
 * A stand-in for what a bwrap killed during its start-up leaves behind: a process outside
 * the command's process group whose command line carries `args` (as bwrap's copy carries
 * `--setenv CODING_AGENT_SANDBOX <marker>`).
 */
const strays: ChildProcess[] = [];
function stray(...args: string[]): ChildProcess {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "--", ...args], {
    detached: true,
    stdio: "ignore",
  });
  strays.push(child);
  return child;
}
const ended = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
    else child.once("exit", (_code, signal) => resolve(signal));
  });
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

afterEach(() => {
  for (const child of strays.splice(0)) if (running(child)) child.kill("SIGKILL");
});

describe("killMarked", () => {
  it("ends a process whose command line holds the marker as one argument, and no other", async () => {
    const marker = newSandboxMarker();
    const marked = stray("--setenv", "CODING_AGENT_SANDBOX", marker);
    const other = stray("--setenv", "CODING_AGENT_SANDBOX", newSandboxMarker());
    // Look-alikes: the marker inside a longer argument, or split over two.
    const longer = stray(`${marker}x`);
    const split = stray(marker.slice(0, 8), marker.slice(8));
    await new Promise((resolve) => marked.once("spawn", resolve));
    expect(killMarked(marker)).toBe(1);
    expect(await ended(marked)).toBe("SIGKILL");
    expect([other, longer, split].map(running)).toEqual([true, true, true]);
  });
});

describe("sandboxGroup", () => {
  it("ends what carries the command's marker once the command was killed", async () => {
    const marker = newSandboxMarker();
    const left = stray("--setenv", "CODING_AGENT_SANDBOX", marker);
    const controller = new AbortController();
    const call = runProcess(
      {
        argv: ["sleep", "30"],
        cwd: tmpdir(),
        env: ENV,
        maxOutputBytes: 100_000,
        timeoutMs: 60_000,
        signal: controller.signal,
      },
      sandboxGroup(marker),
    );
    controller.abort(new Error("取消"));
    await expect(call).rejects.toThrow("取消");
    expect(await ended(left)).toBe("SIGKILL");
  });

  it("looks for nothing when the command ends by itself", async () => {
    const marker = newSandboxMarker();
    const bystander = stray("--setenv", "CODING_AGENT_SANDBOX", marker);
    const result = await runProcess(
      { argv: ["true"], cwd: tmpdir(), env: ENV, maxOutputBytes: 100_000, timeoutMs: 60_000 },
      sandboxGroup(marker),
    );
    expect(result.exitCode).toBe(0);
    expect(running(bystander)).toBe(true);
  });
});

const EXEC = new URL("../src/sandbox/exec.ts", import.meta.url).href;
const GROUP = new URL("../src/sandbox/sandbox-group.ts", import.meta.url).href;

describe("sandboxGroup when this process exits at once", () => {
  it("ends what took the marker after the kill, although the command's exit was never seen", async () => {
    const marker = newSandboxMarker();
    // The kill, then (as bwrap's late clone would) a process taking the marker, then an exit
    // before any event is handled: only the look on exit can find it.
    const script = `
      import { spawn } from "node:child_process";
      import { runProcess } from ${JSON.stringify(EXEC)};
      import { sandboxGroup } from ${JSON.stringify(GROUP)};
      const controller = new AbortController();
      runProcess({ argv: ["sleep", "30"], cwd: "/", env: process.env, timeoutMs: 60000, signal: controller.signal }, sandboxGroup(${JSON.stringify(marker)})).catch(() => {});
      controller.abort();
      const late = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "--", "--setenv", "CODING_AGENT_SANDBOX", ${JSON.stringify(marker)}], { detached: true, stdio: "ignore" });
      process.stdout.write(String(late.pid), () => process.exit(130));
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(130);
    const late = Number(out);
    expect(late).toBeGreaterThan(0);
    // A SIGKILL takes effect when the kernel next runs the process (later on a loaded
    // machine): the suite's wait for marked processes to go allows for that.
    expect(await leftoverProcesses(currentMark(), 10_000), "退出时没有找到带标记的进程").toEqual(
      [],
    );
  });
});

describe("a bwrap command killed as it starts", () => {
  let workspace = "";
  afterEach(async () => {
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  it("sets its marker inside the sandbox", async (context) => {
    workspace = await realpath(await mkdtemp(join(tmpdir(), "sandbox-group-")));
    const bwrap = requireBwrap(await bwrapForTests(workspace), context);
    const marker = newSandboxMarker();
    const argv = buildBwrapArgv({
      bwrap,
      workspace,
      argv: ["/bin/sh", "-c", 'printf %s "$CODING_AGENT_SANDBOX"'],
      marker,
    });
    const result = await runProcess({
      argv: argv as [string, ...string[]],
      cwd: workspace,
      env: ENV,
      maxOutputBytes: 100_000,
      timeoutMs: 60_000,
    });
    expect(result.stdout).toBe(marker);
  });

  // bwrap 0.8 asks for --die-with-parent only after cloning: killed in between, its clone
  // used to go on and run the command (about 1 start in 30 here). Each of these starts is
  // aborted at once; with the marker none outlives its call, however the kill falls.
  it("leaves no process of any of 40 starts aborted at once", async (context) => {
    workspace = await realpath(await mkdtemp(join(tmpdir(), "sandbox-group-")));
    const bwrap = requireBwrap(await bwrapForTests(workspace), context);
    const seconds = `${50 + Math.floor(Math.random() * 1000) / 1000}`;
    for (let start = 0; start < 40; start += 1) {
      const { argv, group } = bwrapCommand({ bwrap, workspace, argv: ["/bin/sleep", seconds] });
      const controller = new AbortController();
      const call = runProcess(
        {
          argv: argv as [string, ...string[]],
          cwd: workspace,
          env: ENV,
          maxOutputBytes: 100_000,
          timeoutMs: 60_000,
          signal: controller.signal,
        },
        group,
      );
      // Spread the kill over bwrap's start-up: at once, after one turn, after a timer.
      if (start % 3 === 1) await Promise.resolve();
      if (start % 3 === 2) await new Promise((resolve) => setImmediate(resolve));
      controller.abort(new Error("取消"));
      await call.catch(() => undefined);
    }
    expect(await leftoverProcesses(currentMark(), 10_000), "被取消的沙箱命令不能留下进程").toEqual(
      [],
    );
  });
});
