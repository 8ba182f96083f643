/**
 * A killed run leaves no subagent copy behind for good (docs/contracts.md §8): its isolated
 * copies (a git worktree, or a temporary folder) outlive a SIGKILL, and the next resume
 * removes every copy whose owner process is gone, with its worktree entry. A copy of a live
 * process, and folders that are not provably ours, are left alone.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COPY_PREFIX, removeOrphanedCopies } from "../src/subagents/workspace-copy.ts";
import { BIN } from "./support/spawn-bin.ts";

// Real processes and git: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 60_000 };
const COPY_THEN_DIE = fileURLToPath(new URL("./support/copy-then-die.ts", import.meta.url));

let base: string;
let repo: string;
let temp: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "coding-agent-orphans-")));
  repo = join(base, "repo");
  temp = join(base, "tmp");
  await Promise.all([mkdir(repo), mkdir(temp)]);
  await writeFile(join(repo, "a.txt"), "a\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
  git("init", "-q");
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
});
afterEach(() => rm(base, { recursive: true, force: true }));

const worktrees = () =>
  execFileSync("git", ["worktree", "list", "--porcelain"], { cwd: repo, encoding: "utf8" })
    .split("\n")
    .filter((line) => line.startsWith("worktree "));
const copies = async () => (await readdir(temp)).filter((name) => name.startsWith(COPY_PREFIX));

/** Starts a process that makes a copy of `workspace` in `temp`; resolves once the copy exists. */
function makeCopy(workspace: string, stay: boolean) {
  // The workspace's packages from their sources, as the tests themselves import them.
  const args = ["--conditions=@coding-agent/source", COPY_THEN_DIE, workspace];
  const child = spawn(process.execPath, [...args, ...(stay ? ["--stay"] : [])], {
    env: { ...process.env, TMPDIR: temp },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const printed = new Promise<string>((resolve) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
      if (out.includes("\n")) resolve(out.trim());
    });
    // A child that dies before printing fails the test now instead of at the timeout.
    child.on("close", () => resolve(out.trim()));
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  return { child, printed, exited };
}

describe("subagent copies left by a killed run", HANG_GUARD, () => {
  it("a worktree copy outlives SIGKILL and is removed with its worktree entry once its owner is gone", async () => {
    const { printed, exited } = makeCopy(repo, false);
    const copyWorkspace = await printed;
    expect(await exited).toBe("SIGKILL");
    expect(existsSync(copyWorkspace)).toBe(true);
    expect(worktrees()).toHaveLength(2);
    const removed = await removeOrphanedCopies(temp);
    expect(removed).toHaveLength(1);
    expect(await copies()).toEqual([]);
    expect(worktrees()).toEqual([`worktree ${repo}`]);
  });

  it("a folder copy (no git repository) is removed too", async () => {
    const plain = join(base, "plain");
    await mkdir(plain);
    await writeFile(join(plain, "b.txt"), "b\n");
    const { printed, exited } = makeCopy(plain, false);
    await printed;
    expect(await exited).toBe("SIGKILL");
    expect(await copies()).toHaveLength(1);
    expect(await removeOrphanedCopies(temp)).toHaveLength(1);
    expect(await copies()).toEqual([]);
  });

  it("the copy of a live process stays until that process is gone", async () => {
    const { child, printed, exited } = makeCopy(repo, true);
    await printed;
    expect(await removeOrphanedCopies(temp)).toEqual([]);
    expect(await copies()).toHaveLength(1);
    child.kill("SIGKILL");
    await exited;
    expect(await removeOrphanedCopies(temp)).toHaveLength(1);
    expect(worktrees()).toEqual([`worktree ${repo}`]);
  });

  it("leaves alone what is not provably a dead run's copy", async () => {
    // No owner file (another program's folder, or an older version's copy).
    await mkdir(join(temp, `${COPY_PREFIX}noowner`));
    // A link named like a copy, pointing at a folder with a dead owner: not followed.
    const elsewhere = join(base, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, "owner.json"), JSON.stringify({ pid: 2 ** 22 + 1 }));
    await symlink(elsewhere, join(temp, `${COPY_PREFIX}link`));
    // Owner files that say nothing usable.
    for (const [name, owner] of [
      ["badpid", { pid: "1" }],
      ["zeropid", { pid: 0 }],
      ["relativetop", { pid: 2 ** 22 + 1, top: "repo" }],
    ] as const) {
      await mkdir(join(temp, `${COPY_PREFIX}${name}`));
      await writeFile(join(temp, `${COPY_PREFIX}${name}`, "owner.json"), JSON.stringify(owner));
    }
    await writeFile(join(temp, `${COPY_PREFIX}notjson`), "x");
    expect(await removeOrphanedCopies(temp)).toEqual([]);
    expect(existsSync(join(elsewhere, "owner.json"))).toBe(true);
    expect((await copies()).sort()).toEqual(
      ["badpid", "link", "noowner", "notjson", "relativetop", "zeropid"].map(
        (n) => `${COPY_PREFIX}${n}`,
      ),
    );
  });

  it("removes only the copy's own worktree, never the repository's other worktrees", async () => {
    const { printed, exited } = makeCopy(repo, false);
    await printed;
    await exited;
    // The other repository has a worktree of its own that must survive.
    const keep = join(base, "keep");
    execFileSync("git", ["worktree", "add", "-q", "--detach", keep], {
      cwd: repo,
      stdio: "ignore",
    });
    await removeOrphanedCopies(temp);
    expect(worktrees()).toEqual([`worktree ${repo}`, `worktree ${keep}`]);
  });
});

describe("resume after a SIGKILL during a child's run", HANG_GUARD, () => {
  it("removes the killed run's copy and its worktree entry before going on", async () => {
    const home = join(base, "home");
    const script = join(base, "script.json");
    const tool = (name: string, input: unknown) => ({ type: "tool_call", tool: name, input });
    await writeFile(
      script,
      JSON.stringify([
        { action: tool("spawn_agent", { goal: "慢慢做" }) },
        // The child sleeps long enough to be killed while its copy exists.
        { agent: "慢慢做", action: tool("sleep", { ms: 60_000 }) },
        { agent: "慢慢做", action: { type: "finish", summary: "做完了" } },
        { action: { type: "finish", summary: "好了" } },
      ]),
    );
    const env = { CODING_AGENT_HOME: home, PATH: process.env.PATH, TMPDIR: temp };
    const argv = ["run", "总目标", "--script", script, "--workspace", repo, "--approval", "auto"];
    const flags = ["--subagents", "1", "--finish-gate", "none", "--sandbox", "none", "--json"];
    const parent = spawn(process.execPath, [BIN, ...argv, ...flags], { env, stdio: "ignore" });
    const exited = new Promise((resolve) => parent.on("exit", (_code, signal) => resolve(signal)));
    // Waits for the copy to exist (a condition, not a time), then kills the parent outright.
    while ((await copies()).length === 0 || worktrees().length < 2)
      await new Promise((resolve) => setTimeout(resolve, 50));
    parent.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    expect(await copies()).toHaveLength(1);
    const runs = JSON.parse(
      execFileSync(process.execPath, [BIN, "runs", "--json"], { env, encoding: "utf8" }),
    );
    const resume = spawn(process.execPath, [BIN, "resume", runs[0].runId, "--json"], {
      env,
      stdio: "ignore",
    });
    await new Promise((resolve) => resume.on("exit", resolve));
    expect(await copies()).toEqual([]);
    expect(worktrees()).toEqual([`worktree ${repo}`]);
  });
});
