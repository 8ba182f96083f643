/**
 * Subagents (docs/contracts.md §7, lesson 39) through the real CLI: children in a git worktree and in
 * a temporary copy, results in call order under concurrency, patches, allowPaths, the
 * carved budget, cancellation that leaves no worktree, folder or process, and the
 * attacks: writes outside the copy or the allowed paths, a symlink to outside.
 */
import { execFileSync, spawn as spawnProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { checkTrace, type TraceEvent } from "@coding-agent/agent-core";
import { chooseSandbox } from "@coding-agent/tools";
import { describe, expect, it } from "vitest";
import { runCli, runCliCaptured } from "../src/cli.ts";
import { WORKSPACE_SETTINGS } from "../src/hooks/settings.ts";
import { COPY_PREFIX } from "../src/subagents/workspace-copy.ts";
import { inProcessTable } from "./support/process-state.ts";
import { toolResults } from "./support/run-cli.ts";
import { BIN } from "./support/spawn-bin.ts";
import { useSubagentFolders } from "./support/subagent-folders.ts";

// Real git and processes: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 60_000 };

let base: string;
let ws: string;
let temp: string;
let marks: string;
useSubagentFolders("coding-agent-subagents-", (made) => {
  ({ base, ws, temp, marks } = made);
});

const call = (tool: string, input: unknown) => ({ type: "tool_call", tool, input });
const spawn = (goal: string, allowPaths?: string[]) =>
  call("spawn_agent", { goal, ...(allowPaths === undefined ? {} : { allowPaths }) });
const finish = (summary = "好了") => ({ action: { type: "finish", summary } });
const write = (file: string, content: string) => call("write_file", { path: file, content });
/** A turn of the child whose goal is `agent`. */
const turn = (agent: string, action: unknown, more: Record<string, unknown> = {}) => ({
  agent,
  action,
  ...more,
});

function git(args: string[], cwd = ws): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" });
}

/** A repository with a commit, an uncommitted edit and an untracked file. */
async function gitWorkspace(): Promise<void> {
  git(["init", "--quiet"]);
  git(["config", "user.email", "t@example.com"]);
  git(["config", "user.name", "t"]);
  await mkdir(join(ws, "src"));
  await writeFile(join(ws, "src/a.txt"), "a\n");
  await writeFile(join(ws, "src/b.txt"), "b\n");
  git(["add", "--all"]);
  git(["commit", "--quiet", "-m", "init"]);
  await writeFile(join(ws, "src/a.txt"), "a uncommitted\n");
  await writeFile(join(ws, "notes.txt"), "untracked\n");
}

async function cli(turns: unknown[], flags: string[], signal = new AbortController().signal) {
  const script = join(base, "script.json");
  await writeFile(script, JSON.stringify(turns));
  const argv = ["run", "总目标", "--script", script, "--workspace", ws, "--approval", "auto"];
  const run = await runCliCaptured([...argv, "--json", ...flags], process.env, signal);
  const { stdout, stderr } = run;
  return { code: run.exitCode, stderr, result: stdout === "" ? undefined : JSON.parse(stdout) };
}

type SpawnValue = {
  status: string;
  code: string;
  summary: string;
  patch: string;
  files: string[];
  excluded?: string[];
};
/** The values of the run's spawn_agent results, in call order (an error: undefined). */
const spawned = (result: { messages: Array<Record<string, unknown>> }) =>
  result.messages
    .filter((message) => message.role === "tool" && message.tool === "spawn_agent")
    .map((message) =>
      message.ok ? (JSON.parse(String(message.content)) as SpawnValue) : undefined,
    );

async function traceOf(file: string): Promise<TraceEvent[]> {
  const text = await readFile(file, "utf8");
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as TraceEvent);
}

/** Nothing of any child left: no worktree but the main one, the temp folder empty. */
/** A crash before step `step`'s reply was logged: the state log cut right before that line. */
async function crashBeforeStep(runDir: string, step: number): Promise<void> {
  const stateFile = join(runDir, "state.jsonl");
  const lines = (await readFile(stateFile, "utf8")).trimEnd().split("\n");
  const at = lines.findIndex((line) => {
    const event = JSON.parse(line);
    return event.type === "model_reply" && event.step === step;
  });
  expect(at, `state.jsonl has no model_reply of step ${step}`).toBeGreaterThan(0);
  await writeFile(stateFile, `${lines.slice(0, at).join("\n")}\n`);
}

async function expectNothingLeft(): Promise<void> {
  if (existsSync(join(ws, ".git"))) {
    expect(git(["worktree", "list", "--porcelain"]).match(/^worktree /gm)).toHaveLength(1);
    expect(await readdir(join(ws, ".git", "worktrees")).catch(() => [])).toEqual([]);
  }
  expect(await readdir(temp)).toEqual([]);
}

describe("spawn_agent in a git repository", HANG_GUARD, () => {
  it("runs two children at once in worktrees and answers in call order with their patches", async () => {
    await gitWorkspace();
    // The first child waits until the second has written its mark: were they run one
    // after the other, the first would wait for ever (its tool timeout ends it).
    const waitForB = call("run_command", {
      argv: ["sh", "-c", `while [ ! -f '${marks}/b' ]; do sleep 0.02; done`],
    });
    const markB = call("run_command", { argv: ["sh", "-c", `touch '${marks}/b'`] });
    const turns = [
      { actions: [spawn("改 a", ["src/a.txt"]), spawn("改 b")] },
      finish(),
      turn("改 a", waitForB),
      turn("改 a", write("src/a.txt", "A by child\n")),
      turn("改 a", finish("a 好了").action),
      turn("改 b", markB),
      turn("改 b", write("src/new.txt", "new\n")),
      turn("改 b", finish("b 好了").action),
    ];
    // No sandbox: the children's commands meet through a folder outside their copies.
    const { code, result, stderr } = await cli(turns, [
      "--subagents",
      "2",
      "--allow-command",
      "sh",
      "--sandbox",
      "none",
    ]);
    expect(code, stderr).toBe(0);
    // Answers in call order, whichever child ended first: which one that is depends on the
    // machine's load (a delay cannot decide it), so the order of completion is proven where
    // it can be held still, in runAll's tests and lesson 39's completion-order gate.
    const [a, b] = spawned(result);
    expect(a).toMatchObject({ status: "completed", code: "finished", summary: "a 好了" });
    expect(a?.files).toEqual(["src/a.txt"]);
    // The child started from the parent's uncommitted state, not from HEAD.
    expect(a?.patch).toContain("diff --git a/src/a.txt b/src/a.txt");
    expect(a?.patch).toContain("-a uncommitted\n+A by child\n");
    expect(b).toMatchObject({ status: "completed", summary: "b 好了", files: ["src/new.txt"] });
    expect(b?.patch).toContain("new file mode 100644");
    expect(b?.patch).toContain("+++ b/src/new.txt\n@@ -0,0 +1 @@\n+new\n");
    // The parent's workspace is as it was: the children wrote only their copies.
    expect(await readFile(join(ws, "src/a.txt"), "utf8")).toBe("a uncommitted\n");
    expect(existsSync(join(ws, "src/new.txt"))).toBe(false);
    expect(git(["status", "--porcelain"])).toBe(" M src/a.txt\n?? notes.txt\n");
    await expectNothingLeft();
    // Each child has a trace of its own, whole; the parent's stays whole too.
    const runDir = result.runDir as string;
    expect(checkTrace(await traceOf(join(runDir, "trace.jsonl"))).ok).toBe(true);
    for (const index of ["1", "2"]) {
      const events = await traceOf(join(runDir, "subagents", index, "trace.jsonl"));
      expect(checkTrace(events)).toMatchObject({ ok: true });
      expect(events[0]).toMatchObject({ type: "run_started" });
    }
  });

  it("runs at most n at once: with --subagents 1 the second child starts after the first", async () => {
    await gitWorkspace();
    // The first child looks for the second's mark for a second: it cannot be there yet.
    const lookForB = call("run_command", {
      argv: [
        "sh",
        "-c",
        `for i in $(seq 50); do [ -f '${marks}/b' ] && exit 0; sleep 0.02; done; echo 没等到; exit 7`,
      ],
    });
    const turns = [
      { actions: [spawn("等 b"), spawn("写 b")] },
      finish(),
      turn("等 b", lookForB),
      turn("等 b", finish("等过了").action),
      turn("写 b", call("run_command", { argv: ["sh", "-c", `touch '${marks}/b'`] })),
      turn("写 b", finish("写了").action),
    ];
    const { code, result, stderr } = await cli(turns, [
      "--subagents",
      "1",
      "--allow-command",
      "sh",
      "--sandbox",
      "none",
    ]);
    expect(code, stderr).toBe(0);
    const looked = await traceOf(join(result.runDir, "subagents", "1", "trace.jsonl"));
    const ran = looked.find((event) => event.type === "tool_completed") as { detail: string };
    expect(ran.detail).toContain("没等到");
    expect(ran.detail).toContain('"exitCode":7');
    expect(spawned(result).map((value) => value?.summary)).toEqual(["等过了", "写了"]);
    expect(existsSync(join(marks, "b"))).toBe(true);
    await expectNothingLeft();
  });

  it("keeps the child's edits inside allowPaths: refused writes, and files left out of the patch", async () => {
    await gitWorkspace();
    const turns = [
      { action: spawn("只改 a", ["src/a.txt"]) },
      finish(),
      // The edit tool refuses a file outside allowPaths…
      turn("只改 a", write("src/b.txt", "B\n")),
      // …a command writes it anyway (inside the copy): the patch leaves it out.
      turn("只改 a", call("run_command", { argv: ["sh", "-c", "echo sneaky > src/b.txt"] })),
      turn("只改 a", write("src/a.txt", "A\n")),
      turn("只改 a", finish("改了 a").action),
    ];
    const { code, result, stderr } = await cli(turns, [
      "--subagents",
      "1",
      "--allow-command",
      "sh",
      "--sandbox",
      "none",
    ]);
    expect(code, stderr).toBe(0);
    const [value] = spawned(result);
    expect(value?.files).toEqual(["src/a.txt"]);
    expect(value?.excluded).toEqual(["src/b.txt"]);
    expect(value?.patch).not.toContain("src/b.txt");
    expect(value?.patch).not.toContain("sneaky");
    const child = await traceOf(join(result.runDir, "subagents", "1", "trace.jsonl"));
    const refused = child.find((event) => event.type === "tool_completed");
    expect(refused).toMatchObject({ tool: "write_file", ok: false });
    await expectNothingLeft();
  });

  it("refuses allowPaths wider than the parent's --allow-path, and a missing goal, as tool errors", async () => {
    await gitWorkspace();
    const turns = [
      { action: spawn("越界", ["notes.txt"]) },
      { action: call("spawn_agent", { allowPaths: ["src"] }) },
      { action: spawn("越界", ["../outside"]) },
      finish(),
    ];
    const { code, result, stderr } = await cli(turns, ["--subagents", "1", "--allow-path", "src"]);
    expect(code, stderr).toBe(0);
    const outcomes = toolResults(result);
    expect(outcomes.map((outcome) => outcome.error?.code)).toEqual([
      "invalid_input",
      "invalid_input",
      "invalid_input",
    ]);
    expect(outcomes[0]?.error?.message).toContain("allowPaths 只能比本次运行的 --allow-path 更窄");
    expect(outcomes[1]?.error?.message).toContain("goal");
    expect(outcomes[2]?.error?.message).toContain("..");
    expect(stderr).not.toContain("子 Agent #1 开始");
    await expectNothingLeft();
  });

  it("carves the child's budget out of the parent's and counts what it spent", async () => {
    await gitWorkspace();
    const echo = (text: string) => call("echo", { text });
    const turns = [
      { actions: [spawn("子一"), spawn("子二")] },
      { action: echo("第二步") },
      { action: echo("不会到这里") },
      turn("子一", echo("1")),
      turn("子一", echo("2")),
      turn("子一", echo("3")),
      turn("子二", echo("1")),
      turn("子二", finish("子二好了").action),
    ];
    const { code, result, stderr } = await cli(turns, [
      "--subagents",
      "2",
      "--max-steps",
      "6",
      "--max-duration-ms",
      "30000",
    ]);
    // 6 steps, the parent used 1 and keeps 1: each of two children gets 2.
    const [one, two] = spawned(result);
    expect(one).toMatchObject({ status: "budget_exceeded", code: "max_steps" });
    expect(two).toMatchObject({ status: "completed", summary: "子二好了" });
    for (const index of ["1", "2"]) {
      const [started] = await traceOf(join(result.runDir, "subagents", index, "trace.jsonl"));
      const limits = (started as { limits: { maxSteps: number; maxDurationMs: number } }).limits;
      expect(limits.maxSteps).toBe(2);
      expect(limits.maxDurationMs).toBeLessThanOrEqual(30_000);
      expect(limits.maxDurationMs).toBeGreaterThan(0);
    }
    // Parent 2 steps + children 4 = 6: the parent stops before its third call.
    expect(code, stderr).toBe(3);
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_steps", steps: 2 });
    expect(result.reason).toContain("其中子 Agent 4 步");
    await expectNothingLeft();
  });

  it("reports a child that fails as a result, and the parent goes on", async () => {
    await gitWorkspace();
    // The child's goal has no turns: its first model call fails.
    const turns = [{ action: spawn("没有脚本的子 Agent") }, finish("父运行照常结束")];
    const { code, result, stderr } = await cli(turns, ["--subagents", "1"]);
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", summary: "父运行照常结束" });
    const [value] = spawned(result);
    expect(value).toMatchObject({ status: "failed", code: "provider_error", patch: "" });
    await expectNothingLeft();
  });

  it("under --subagents 1, the second child of a reply starts only once the first has ended", async () => {
    await gitWorkspace();
    // The second child's first command looks for the first child's last mark: run side by
    // side it could not be there yet (the first waits on nothing, but writes it last).
    const markA = call("run_command", { argv: ["sh", "-c", `touch '${marks}/a-done'`] });
    const lookForA = call("run_command", {
      argv: [
        "sh",
        "-c",
        `if [ -f '${marks}/a-done' ]; then echo after > '${marks}/b-saw'; else echo during > '${marks}/b-saw'; fi`,
      ],
    });
    const turns = [
      { actions: [spawn("一"), spawn("二")] },
      finish(),
      turn("一", markA),
      turn("一", finish("一好了").action),
      turn("二", lookForA),
      turn("二", finish("二好了").action),
    ];
    const flags = ["--subagents", "1", "--allow-command", "sh", "--sandbox", "none"];
    const { code, result, stderr } = await cli(turns, flags);
    expect(code, stderr).toBe(0);
    expect(spawned(result).map((value) => value?.summary)).toEqual(["一好了", "二好了"]);
    expect((await readFile(join(marks, "b-saw"), "utf8")).trim()).toBe("after");
    expect(stderr.indexOf("子 Agent #1 结束")).toBeLessThan(stderr.indexOf("子 Agent #2 开始"));
    await expectNothingLeft();
  });

  it("cancelling the parent cancels every running child and leaves no worktree and no process", async () => {
    await gitWorkspace();
    const sleeper = (name: string) =>
      call("run_command", {
        argv: ["sh", "-c", `echo $$ > '${marks}/${name}.pid'; exec sleep 30`],
      });
    const turns = [
      { actions: [spawn("睡一"), spawn("睡二")] },
      finish(),
      turn("睡一", sleeper("one")),
      turn("睡二", sleeper("two")),
    ];
    const controller = new AbortController();
    const running = cli(
      turns,
      ["--subagents", "2", "--allow-command", "sh", "--sandbox", "none"],
      controller.signal,
    );
    // A run that ends before both commands started (a child that failed) fails the test
    // with the run's own words, instead of leaving it waiting for a file never written.
    let ended = false;
    void running.then(() => {
      ended = true;
    });
    const pids: number[] = [];
    for (const name of ["one", "two"]) {
      const file = join(marks, `${name}.pid`);
      while (!existsSync(file) || (await readFile(file, "utf8")).trim() === "") {
        if (ended) expect.fail(`子 Agent 的命令开始之前运行就结束了：${(await running).stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      pids.push(Number((await readFile(file, "utf8")).trim()));
    }
    // Both children are in copies of their own under the temp folder while they run.
    const copies = (await readdir(temp)).filter((name) => name.startsWith(COPY_PREFIX));
    expect(copies).toHaveLength(2);
    expect(git(["worktree", "list", "--porcelain"]).match(/^worktree /gm)).toHaveLength(3);
    const abortedAt = performance.now();
    controller.abort();
    const { code, result } = await running;
    const returnedMs = performance.now() - abortedAt;
    expect(code).toBe(130);
    expect(result).toMatchObject({ status: "cancelled" });
    // By the time the run returned, every copy is gone.
    await expectNothingLeft();
    // And every child's process: killed with its group, and reaped (a zombie still counts).
    while (pids.some(inProcessTable)) await new Promise((resolve) => setTimeout(resolve, 5));
    const goneMs = performance.now() - abortedAt;
    console.log(
      `subagents abort: run returned ${returnedMs.toFixed(0)} ms, processes gone ${goneMs.toFixed(0)} ms after abort`,
    );
  });
});

/** A git workspace whose one PreToolUse hook, on spawn_agent calls, runs `command`. */
async function hookedWorkspace(command: string): Promise<void> {
  await gitWorkspace();
  await mkdir(join(ws, ".coding-agent"));
  await writeFile(
    join(ws, WORKSPACE_SETTINGS),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "spawn_agent", command }] } }),
  );
}

/** A git workspace whose PreToolUse hook vetoes any spawn_agent call whose input says 禁止. */
const vetoingWorkspace = () =>
  hookedWorkspace("if grep -q 禁止; then echo '不许这个子 Agent' >&2; exit 2; fi");

describe("spawn_agent against hooks and the default sandbox", HANG_GUARD, () => {
  it("a later spawn_agent a hook vetoes starts no child", async () => {
    await vetoingWorkspace();
    const turns = [
      { actions: [spawn("允许"), spawn("禁止")] },
      finish(),
      turn("允许", write("src/a.txt", "A\n")),
      turn("允许", finish("好了").action),
      // The vetoed call's child never starts: its turns are never asked for.
      turn("禁止", call("sleep", { ms: 20_000 })),
      turn("禁止", finish("不该到这里").action),
    ];
    const { code, result, stderr } = await cli(turns, ["--subagents", "2", "--trust-workspace"]);
    expect(code, stderr).toBe(0);
    const outcomes = toolResults(result);
    expect(outcomes[0]).toMatchObject({ tool: "spawn_agent", ok: true });
    expect(outcomes[1]).toMatchObject({ ok: false, error: { code: "hook_denied" } });
    expect(spawned(result)[0]).toMatchObject({ status: "completed", files: ["src/a.txt"] });
    expect(stderr).not.toContain("禁止");
    expect(await readdir(join(result.runDir, "subagents"))).toEqual(["1"]);
    const state = (await readFile(join(result.runDir, "state.jsonl"), "utf8")).split("\n");
    expect(state.filter((line) => line.includes('"subagent_finished"'))).toHaveLength(1);
    await expectNothingLeft();
  });

  it("under --subagents 1, a vetoed first spawn_agent holds no slot: the next one's child runs", async () => {
    await vetoingWorkspace();
    const turns = [
      { actions: [spawn("禁止"), spawn("允许")] },
      finish(),
      turn("禁止", finish("不该到这里").action),
      turn("允许", finish("允许的好了").action),
    ];
    const { code, result, stderr } = await cli(turns, ["--subagents", "1", "--trust-workspace"]);
    expect(code, stderr).toBe(0);
    const outcomes = toolResults(result);
    expect(outcomes[0]).toMatchObject({ ok: false, error: { code: "hook_denied" } });
    expect(spawned(result)[1]).toMatchObject({ status: "completed", summary: "允许的好了" });
    expect(stderr).toContain("子 Agent #1 开始：允许");
    expect(stderr).not.toContain("禁止");
    await expectNothingLeft();
  });

  it("a later spawn_agent a hook rewrites: its child runs with the rewritten input only", async () => {
    await hookedWorkspace(`if grep -q 原目标; then echo '{"input":{"goal":"改写后"}}'; fi`);
    const turns = [
      { actions: [spawn("第一"), spawn("原目标")] },
      finish(),
      turn("第一", finish("第一个好了").action),
      // No child ever runs with the input the hook rewrote.
      turn("原目标", call("sleep", { ms: 20_000 })),
      turn("改写后", finish("改写后的子 Agent 好了").action),
    ];
    const { code, result, stderr } = await cli(turns, ["--subagents", "2", "--trust-workspace"]);
    expect(code, stderr).toBe(0);
    expect(spawned(result).map((value) => value?.summary)).toEqual([
      "第一个好了",
      "改写后的子 Agent 好了",
    ]);
    expect(stderr).toContain("子 Agent #2 开始：改写后");
    expect(stderr).not.toContain("原目标");
    expect(await readdir(join(result.runDir, "subagents"))).toEqual(["1", "2"]);
    await expectNothingLeft();
  });

  it("a child's command in the bwrap sandbox cannot write the parent's workspace", async (context) => {
    await gitWorkspace();
    const sandbox = await chooseSandbox({ mode: "bwrap", workspace: ws });
    if (sandbox.kind !== "bwrap") {
      // As the tools' own bwrap tests: skipped on a machine without it, never under CI.
      if (process.env.CI) throw new Error("CI 上必须能运行 bwrap 测试");
      context.skip("bwrap 不可用");
    }
    const script = `echo 越界 > '${join(ws, "pwned.txt")}'; echo 副本里 > inside.txt`;
    const turns = [
      { action: spawn("写到外面去") },
      finish(),
      turn("写到外面去", call("run_command", { argv: ["sh", "-c", script] })),
      turn("写到外面去", finish("试过了").action),
    ];
    const { code, result, stderr } = await cli(turns, [
      "--subagents",
      "1",
      "--allow-command",
      "sh",
      "--sandbox",
      "bwrap",
    ]);
    expect(code, stderr).toBe(0);
    expect(existsSync(join(ws, "pwned.txt"))).toBe(false);
    // What it wrote inside its copy comes back as a patch, for the parent to decide on.
    expect(spawned(result)[0]).toMatchObject({ files: ["inside.txt"] });
    await expectNothingLeft();
  });

  it("cancelling a child whose command runs in the default sandbox leaves no process either", async () => {
    await gitWorkspace();
    // A sleep no other process on the machine has: found by its arguments.
    const seconds = `${30 + Math.floor(Math.random() * 1000) / 1000}`;
    const turns = [
      { action: spawn("在沙箱里睡") },
      finish(),
      turn("在沙箱里睡", call("run_command", { argv: ["sleep", seconds] })),
    ];
    const controller = new AbortController();
    const running = cli(turns, ["--subagents", "1", "--allow-command", "sleep"], controller.signal);
    const sleeping = () =>
      execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
        .split("\n")
        // `/usr/bin/sleep 30.123`, and bwrap's own line that ends with it.
        .some((line) => line.trimEnd().endsWith(`sleep ${seconds}`));
    while (!sleeping()) await new Promise((resolve) => setTimeout(resolve, 20));
    const abortedAt = performance.now();
    controller.abort();
    const { code } = await running;
    expect(code).toBe(130);
    await expectNothingLeft();
    while (sleeping()) await new Promise((resolve) => setTimeout(resolve, 5));
    console.log(
      `subagents abort (default sandbox): processes gone ${(performance.now() - abortedAt).toFixed(0)} ms after abort`,
    );
  });
});

describe("Ctrl-C on the real bin with children running", HANG_GUARD, () => {
  for (const presses of [1, 2]) {
    it(`${presses} × SIGINT: no worktree, no copy and no process of a child is left`, async () => {
      await gitWorkspace();
      const seconds = `${40 + Math.floor(Math.random() * 1000) / 1000}`;
      const script = join(base, "script.json");
      await writeFile(
        script,
        JSON.stringify([
          { actions: [spawn("睡一"), spawn("睡二")] },
          finish(),
          turn("睡一", call("run_command", { argv: ["sleep", seconds] })),
          turn("睡二", call("run_command", { argv: ["sleep", seconds] })),
        ]),
      );
      const child = spawnProcess(
        process.execPath,
        [
          BIN,
          "run",
          "总目标",
          "--script",
          script,
          "--workspace",
          ws,
          "--approval",
          "auto",
          "--allow-command",
          "sleep",
          "--subagents",
          "2",
        ],
        { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TMPDIR: temp } },
      );
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      const sleepers = () =>
        execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
          .split("\n")
          .filter((line) => line.trimEnd().endsWith(`sleep ${seconds}`)).length;
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      let ended = false;
      void exited.then(() => {
        ended = true;
      });
      // Both children's commands are running (each: bwrap and the sleep, or the sleep alone).
      while (sleepers() < 2) {
        if (ended) expect.fail(`子 Agent 的命令开始之前运行就结束了：${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const at = performance.now();
      for (let press = 0; press < presses; press += 1) child.kill("SIGINT");
      expect(await exited).toBe(130);
      const exitMs = performance.now() - at;
      await expectNothingLeft();
      while (sleepers() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      console.log(
        `subagents Ctrl-C ×${presses}: exited ${exitMs.toFixed(0)} ms, every child process gone ${(performance.now() - at).toFixed(0)} ms after SIGINT`,
      );
    });
  }
});

describe("spawn_agent in a folder that is no repository", HANG_GUARD, () => {
  it("runs the child in a temporary copy and diffs it against the copy's start", async () => {
    await writeFile(join(ws, "a.txt"), "a\n");
    await writeFile(join(ws, ".gitignore"), "a.txt\n");
    const turns = [
      { action: spawn("改 a") },
      finish(),
      turn("改 a", write("a.txt", "A\n")),
      turn("改 a", write("docs/new.md", "# 新\n")),
      turn("改 a", finish("好了").action),
    ];
    const { code, result, stderr } = await cli(turns, ["--subagents", "1"]);
    expect(code, stderr).toBe(0);
    const [value] = spawned(result);
    // A .gitignore in a folder that is no repository ignores nothing.
    expect(value?.files).toEqual(["a.txt", "docs/new.md"]);
    expect(value?.patch).toContain("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n");
    expect(value?.patch).toContain("+++ b/docs/new.md");
    expect(await readFile(join(ws, "a.txt"), "utf8")).toBe("a\n");
    expect(existsSync(join(ws, ".git"))).toBe(false);
    await expectNothingLeft();
  });

  it("keeps a symlink to outside a link: a child cannot write through it", async () => {
    const outside = join(base, "outside");
    await mkdir(outside);
    await writeFile(join(ws, "a.txt"), "a\n");
    await symlink(outside, join(ws, "out"));
    const turns = [
      { action: spawn("穿过链接") },
      finish(),
      turn("穿过链接", write("out/x.txt", "escaped\n")),
      // The parent's own file by its absolute path: outside the child's copy.
      turn("穿过链接", write(join(ws, "a.txt"), "escaped\n")),
      turn("穿过链接", finish("试过了").action),
    ];
    const { code, result, stderr } = await cli(turns, ["--subagents", "1"]);
    expect(code, stderr).toBe(0);
    const child = await traceOf(join(result.runDir, "subagents", "1", "trace.jsonl"));
    const writes = child.filter((event) => event.type === "tool_completed");
    expect(writes).toMatchObject([
      { tool: "write_file", ok: false },
      { tool: "write_file", ok: false },
    ]);
    expect(await readdir(outside)).toEqual([]);
    expect(await readFile(join(ws, "a.txt"), "utf8")).toBe("a\n");
    expect(spawned(result)[0]).toMatchObject({ files: [], patch: "" });
    await expectNothingLeft();
  });
});

describe("spawn_agent off, replayed", HANG_GUARD, () => {
  it("--subagents takes a count: anything else is a usage error", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ["run", "目标", "--subagents", "两个"],
      { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
      new AbortController().signal,
    );
    expect(code).toBe(2);
    expect(err.join("")).toContain("--subagents 需要非负整数");
  });

  it("is not offered without --subagents", async () => {
    await gitWorkspace();
    const { result } = await cli([{ action: spawn("子") }, finish()], []);
    expect(result).toMatchObject({ status: "failed", code: "unknown_tool" });
    expect(await readdir(temp)).toEqual([]);
  });

  it("a replay answers spawn_agent from the log and starts no child", async () => {
    await gitWorkspace();
    const turns = [
      { action: spawn("改 a") },
      finish(),
      turn("改 a", write("src/a.txt", "A\n")),
      turn("改 a", finish("好了").action),
    ];
    const original = await cli(turns, ["--subagents", "1"]);
    expect(original.code, original.stderr).toBe(0);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ["replay", original.result.runId, "--json"],
      { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
      new AbortController().signal,
    );
    expect(code, err.join("")).toBe(0);
    const replayed = JSON.parse(out.join(""));
    expect(replayed.status).toBe("completed");
    expect(spawned(replayed)).toEqual(spawned(original.result));
    expect(err.join("")).not.toContain("子 Agent #1 开始");
    await expectNothingLeft();
  });
});

describe("the parent's usage and cost include its children's", HANG_GUARD, () => {
  /** $1 per million input tokens for the fake model: a parent turn costs $1, a child's $0.25. */
  const PARENT_USAGE = { inputTokens: 1_000_000, outputTokens: 0 };
  const CHILD_USAGE = { inputTokens: 250_000, outputTokens: 100 };
  const echo = (text: string) => call("echo", { text });
  const turns = [
    { actions: [spawn("子一"), spawn("子二")], usage: PARENT_USAGE },
    { action: echo("父运行读了结果"), usage: PARENT_USAGE },
    { ...finish("父运行好了"), usage: PARENT_USAGE },
    turn("子一", echo("1"), { usage: CHILD_USAGE }),
    turn("子一", finish("子一好了").action, { usage: CHILD_USAGE }),
    turn("子二", finish("子二好了").action, { usage: CHILD_USAGE }),
  ];
  const CHILDREN = {
    runs: 2,
    steps: 3,
    toolCalls: 1,
    usage: { inputTokens: 750_000, outputTokens: 300 },
    costUsd: 0.75,
  };

  async function pricedRun(more: string[] = []) {
    const pricing = join(base, "pricing.json");
    await writeFile(pricing, JSON.stringify({ fake: { inputPerMTok: 1, outputPerMTok: 0 } }));
    return cli(turns, ["--subagents", "2", "--pricing", pricing, ...more]);
  }

  const cliOf = async (argv: string[]) => {
    const run = await runCliCaptured(argv, process.env, new AbortController().signal);
    return { code: run.exitCode, stderr: run.stderr, result: JSON.parse(run.stdout || "null") };
  };

  /** The figures a replay and a resume must give back as the run had them. */
  const spend = (result: Record<string, unknown>) => {
    const { usage, costUsd, subagents, steps, toolCalls } = result;
    return { usage, costUsd, subagents, steps, toolCalls };
  };

  it("in --json, the replay and the trace report; the children's part named apart", async () => {
    await writeFile(join(ws, "a.txt"), "a\n");
    const { code, result, stderr } = await pricedRun();
    expect(code, stderr).toBe(0);
    expect(spawned(result).map((value) => value?.status)).toEqual(["completed", "completed"]);
    // Parent: 3 turns of $1; children: 3 turns of $0.25. Steps and tool calls stay the parent's.
    expect(spend(result)).toEqual({
      usage: { inputTokens: 3_750_000, outputTokens: 300 },
      costUsd: 3.75,
      subagents: CHILDREN,
      steps: 3,
      toolCalls: 3,
    });

    // The log has each child's spending before its own spawn_agent call's result.
    const state = (await readFile(join(result.runDir, "state.jsonl"), "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const ends = state.filter((event) => event.type === "subagent_finished");
    expect(ends.map((event) => event.costUsd).sort()).toEqual([0.25, 0.5]);
    expect(ends.map((event) => event.callId).sort()).toEqual(["call_1_1", "call_1_2"]);
    for (const end of ends) {
      const answered = state.find(
        (event) => event.type === "tool_result" && event.callId === end.callId,
      );
      expect(end.seq).toBeLessThan(answered.seq);
    }

    // Replayed: no child runs, the whole run's figures come back from the log.
    const replayed = await cliOf(["replay", result.runId, "--json"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stderr).not.toContain("子 Agent #1 开始");
    expect(spend(replayed.result)).toEqual(spend(result));

    // The trace report: the parent's totals with the children's traces added, their part apart.
    const report = await cliOf(["trace", result.runId, "--json"]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.result.totals).toMatchObject({
      steps: 3,
      toolCalls: 3,
      inputTokens: 3_750_000,
      outputTokens: 300,
      costUsd: 3.75,
    });
    expect(report.result.subagents).toEqual({
      runs: 2,
      steps: 3,
      toolCalls: 1,
      inputTokens: 750_000,
      outputTokens: 300,
      costUsd: 0.75,
    });
    const text = await runCliCaptured(
      ["trace", result.runId],
      process.env,
      new AbortController().signal,
    );
    expect(text.stdout).toMatch(/子 Agent\s+2 个 · 3 步 · 1 次工具调用 .*费用 \$0\.75/);
    const page = join(base, "report.html");
    const html = await runCliCaptured(
      ["trace", result.runId, "--html", page],
      process.env,
      new AbortController().signal,
    );
    expect(html.exitCode, html.stderr).toBe(0);
    expect(await readFile(page, "utf8")).toMatch(
      /<dt>子 Agent<\/dt><dd>2 个 · 3 步 · 1 次工具调用 .*\$0\.75/,
    );
    await expectNothingLeft();
  });

  it("without --json, the result's last lines name the children's part of the totals", async () => {
    await writeFile(join(ws, "a.txt"), "a\n");
    const script = join(base, "script.json");
    const pricing = join(base, "pricing.json");
    await writeFile(script, JSON.stringify(turns));
    await writeFile(pricing, JSON.stringify({ fake: { inputPerMTok: 1, outputPerMTok: 0 } }));
    const argv = ["run", "总目标", "--script", script, "--workspace", ws, "--approval", "auto"];
    const run = await runCliCaptured(
      [...argv, "--subagents", "2", "--pricing", pricing],
      process.env,
      new AbortController().signal,
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("token：3750000 输入 / 300 输出 · 成本：$3.75");
    expect(run.stdout).toContain(
      "其中子 Agent（2 个）：步数 3 · 工具调用 1 · token：750000 输入 / 300 输出 · 成本：$0.75",
    );
    await expectNothingLeft();
  });

  it("a resumed run counts the children it does not run again", async () => {
    await writeFile(join(ws, "a.txt"), "a\n");
    const { result } = await pricedRun();
    // A crash after both spawn_agent results: the parent's later replies are lost.
    await crashBeforeStep(result.runDir, 2);

    const resumed = await cliOf(["resume", result.runId, "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain("子 Agent #");
    expect(resumed.result).toMatchObject({ costUsd: 3.75, subagents: CHILDREN });
    expect(spend(resumed.result)).toEqual(spend(result));
    // And the resumed run replays to the same figures.
    const replayed = await cliOf(["replay", result.runId, "--json"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(spend(replayed.result)).toEqual(spend(result));
    await expectNothingLeft();
  });

  it("a resumed run numbers a new child after those before the crash: no child's trace overwritten", async () => {
    await writeFile(join(ws, "a.txt"), "a\n");
    const pricing = join(base, "pricing.json");
    await writeFile(pricing, JSON.stringify({ fake: { inputPerMTok: 1, outputPerMTok: 0 } }));
    const twoSteps = [
      { action: spawn("子一"), usage: PARENT_USAGE },
      { action: spawn("子二"), usage: PARENT_USAGE },
      { ...finish("父运行好了"), usage: PARENT_USAGE },
      turn("子一", finish("子一好了").action, { usage: CHILD_USAGE }),
      turn("子二", finish("子二好了").action, { usage: CHILD_USAGE }),
    ];
    const { result } = await cli(twoSteps, ["--subagents", "1", "--pricing", pricing]);
    expect(result).toMatchObject({ status: "completed", costUsd: 3.5 });
    // A crash after the first child's result: the second reply (and child) never logged.
    await crashBeforeStep(result.runDir, 2);
    await rm(join(result.runDir, "subagents", "2"), { recursive: true });
    const resumed = await cliOf(["resume", result.runId, "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("子 Agent #2 开始：子二");
    expect(resumed.stderr).not.toContain("子 Agent #1 开始");
    expect(spend(resumed.result)).toEqual(spend(result));
    const [first] = await traceOf(join(result.runDir, "subagents", "1", "trace.jsonl"));
    expect(first).toMatchObject({ type: "run_started", goal: "子一" });
    const report = await cliOf(["trace", result.runId, "--json"]);
    expect(report.result.subagents).toMatchObject({ runs: 2, costUsd: 0.5 });
    await expectNothingLeft();
  });

  it("a resumed parent counts what its children spent against its budget, as before the crash", async () => {
    await writeFile(join(ws, "a.txt"), "a\n");
    const budgetTurns = [
      { action: spawn("子一") },
      { action: echo("第二步") },
      { action: echo("第三步") },
      finish("不该到这里"),
      ...["1", "2", "3", "4"].map((n) => turn("子一", echo(n))),
      turn("子一", finish("子一到不了这里").action),
    ];
    // 6 steps: the child gets 4; the parent's 2 and the child's 4 stop it before its third call.
    const { result } = await cli(budgetTurns, ["--subagents", "1", "--max-steps", "6"]);
    expect(result).toMatchObject({ status: "budget_exceeded", code: "max_steps", steps: 2 });
    expect(result.subagents).toMatchObject({ runs: 1, steps: 4 });
    // Replayed: the children's steps from the log stop it where the run stopped.
    const replayed = await cliOf(["replay", result.runId, "--json"]);
    expect(replayed.code, replayed.stderr).toBe(3);
    expect(spend(replayed.result)).toEqual(spend(result));
    expect(replayed.result.reason).toBe(result.reason);
    // A crash before the parent's second reply was logged.
    await crashBeforeStep(result.runDir, 2);
    const resumed = await cliOf(["resume", result.runId, "--json"]);
    // Not counted, the resumed parent would go on to its finish (steps 4, completed).
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(spend(resumed.result)).toEqual(spend(result));
    expect(resumed.result.reason).toContain("其中子 Agent 4 步");
    await expectNothingLeft();
  });
});
