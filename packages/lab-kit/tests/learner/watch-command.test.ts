// `pnpm lesson watch NN` end to end, as a learner starts it (the root script, on the real
// lab 05 starter): vitest's watch run, then the hint reporter's line, which vitest loads by
// path in lab-test's child process. That load once failed on every run (the reporter's
// imports reach @coding-agent/* packages, which resolve only under the source condition)
// while every test of the pieces passed.
import { spawn } from "node:child_process";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "..", "..", "..", "..");

/** Runs `pnpm lesson watch 05`'s command until its output matches `until` (or it exits). */
function watch(until: RegExp): Promise<{ output: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@coding-agent/source", "scripts/lesson.ts", "watch", "05"],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (until.test(stripVTControlCharacters(output)) && child.pid !== undefined) {
        process.kill(-child.pid, "SIGTERM");
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => resolve({ output: stripVTControlCharacters(output), code }));
  });
}

it("pnpm lesson watch 05 runs the starter's tests and prints the hint for the first failure", async () => {
  const { output } = await watch(/第一个失败的测试：[^\n]*\n[^\n]*提示/);
  expect(output).not.toContain("Failed to load custom Reporter");
  expect(output).toContain("Tests  1 failed | 3 passed (4)");
  expect(output).toContain(
    "第一个失败的测试：runAgent > writes a tool result into the next request's observations and completes",
  );
  // However many hints the lesson has for it: one is shown, numbered.
  expect(output).toMatch(/提示 \d+\/\d+：/);
}, 120_000);

/** The processes of a process group, with their command lines (Linux `ps`). */
async function groupMembers(pgid: number): Promise<{ pid: number; args: string }[]> {
  const { execFile } = await import("node:child_process");
  const listing = await new Promise<string>((resolve) =>
    execFile("ps", ["-eo", "pid=,pgid=,args="], (_error, stdout) => resolve(stdout)),
  );
  return listing
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && Number(match[2]) === pgid)
    .map((match) => ({ pid: Number(match[1]), args: match[3] ?? "" }));
}

/**
 * Starts `pnpm lesson watch 05` in a process group of its own, waits for its first result,
 * sends `signal` to the process `pick` chooses, and resolves with what is left of the group
 * a few seconds later (empty when the watch ended with all its children).
 */
function signalWatch(
  signal: NodeJS.Signals,
  pick: (members: { pid: number; args: string }[], pnpm: number) => number | undefined,
): Promise<{ left: string[]; signalled: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn("pnpm", ["lesson", "watch", "05"], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const pgid = child.pid;
    if (pgid === undefined) return reject(new Error("pnpm did not start"));
    let output = "";
    let sent = false;
    const onData = async (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (sent || !/第一个失败的测试/.test(stripVTControlCharacters(output))) return;
      sent = true;
      const target = pick(await groupMembers(pgid), pgid);
      if (target !== undefined) process.kill(target, signal);
      const deadline = Date.now() + 15_000;
      let left = await groupMembers(pgid);
      while (left.length > 0 && Date.now() < deadline) {
        await new Promise((wait) => setTimeout(wait, 250));
        left = await groupMembers(pgid);
      }
      // Whatever is left is ended here, so a failing test leaves nothing running.
      if (left.length > 0) process.kill(-pgid, "SIGKILL");
      resolve({ left: left.map((member) => member.args), signalled: target !== undefined });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
  });
}

const WATCHER = "scripts/lesson.ts watch";

it.runIf(process.platform === "linux")(
  "a watch started through pnpm ends with its children when pnpm gets SIGTERM",
  async () => {
    const { left } = await signalWatch("SIGTERM", (_members, pnpm) => pnpm);
    expect(left, `这些进程在 pnpm 收到 SIGTERM 后还在运行：${left.join("；")}`).toEqual([]);
  },
  120_000,
);

it.runIf(process.platform === "linux")(
  "a watch ends with its children when its own process alone gets SIGINT",
  async () => {
    const { left, signalled } = await signalWatch(
      "SIGINT",
      (members) =>
        members.find((member) => member.args.startsWith("node ") && member.args.includes(WATCHER))
          ?.pid,
    );
    expect(signalled, "找不到 watch 自己的进程").toBe(true);
    expect(left, `这些进程在 watch 收到 SIGINT 后还在运行：${left.join("；")}`).toEqual([]);
  },
  120_000,
);
