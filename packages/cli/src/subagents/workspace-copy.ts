import { execFile, execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import {
  copyFile,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isProcessAlive } from "@coding-agent/tools";

/**
 * A child's own copy of the parent's workspace (docs/contracts.md §7, lesson 39): a detached git
 * worktree at HEAD with the parent's uncommitted changes (tracked edits and untracked,
 * not ignored files) when the workspace is in a git repository with a commit, else a
 * temporary copy of the folder. Either way its starting point is snapshotted as a git
 * tree in a private object store and index under the copy's temporary folder, so the
 * child's changes are `git diff` against it, and the parent's repository gets no new
 * object, ref or index entry (only the worktree's own bookkeeping, removed with it).
 */
export interface IsolatedCopy {
  readonly kind: "worktree" | "copy";
  /** The child's workspace: the folder of the copy that matches the parent's workspace. */
  readonly workspace: string;
  /**
   * The child's changes since the start: a unified diff of the files `isAllowed` accepts
   * (paths relative to the workspace), and the changed files it refused (or outside the
   * workspace folder of a repository), left out of the patch.
   */
  changes(isAllowed: (file: string) => boolean): Promise<CopyChanges>;
  /** Removes the copy (the worktree and its bookkeeping, the temporary folder). Idempotent. */
  remove(): Promise<void>;
}

export interface CopyChanges {
  readonly patch: string;
  /** Changed files in the patch, relative to the workspace. */
  readonly files: readonly string[];
  /** Changed files left out of the patch. */
  readonly excluded: readonly string[];
}

/** Where temporary copies live (the folder name's prefix under the system temp dir). */
export const COPY_PREFIX = "coding-agent-subagent-";

export async function createIsolatedCopy(workspace: string): Promise<IsolatedCopy> {
  const repo = await repositoryOf(workspace);
  const temp = await mkdtemp(path.join(os.tmpdir(), COPY_PREFIX));
  const tree = path.join(temp, "tree");
  let removed = false;
  const cleanup: (() => Promise<void>)[] = [];
  const remove = async () => {
    if (removed) return;
    removed = true;
    for (const step of cleanup) await step().catch(() => {});
    await rm(temp, { recursive: true, force: true });
    forget(temp);
  };
  remember(temp, repo?.top);
  try {
    await writeFile(path.join(temp, OWNER_FILE), JSON.stringify(ownerOf(repo?.top)));
    if (repo === undefined) return await folderCopy(workspace, temp, tree, remove);
    return await worktreeCopy(repo, temp, tree, remove, cleanup);
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * The copies alive in this process, each with a synchronous removal: a process that exits
 * without cancelling its run first (a second Ctrl-C) still leaves no copy and no worktree.
 */
const live = new Map<string, string | undefined>();

function remember(temp: string, top: string | undefined): void {
  if (live.size === 0) process.once("exit", removeAllNow);
  live.set(temp, top);
}

function forget(temp: string): void {
  live.delete(temp);
  if (live.size === 0) process.removeListener("exit", removeAllNow);
}

function removeAllNow(): void {
  for (const [temp, top] of live) {
    const tree = path.join(temp, "tree");
    if (top !== undefined) {
      try {
        execFileSync("git", ["worktree", "remove", "--force", tree], { cwd: top, stdio: "ignore" });
      } catch {
        // Pruned below once the folder is gone.
      }
    }
    rmSync(temp, { recursive: true, force: true });
    if (top !== undefined) {
      try {
        execFileSync("git", ["worktree", "prune"], { cwd: top, stdio: "ignore" });
      } catch {
        // Nothing more to do while exiting.
      }
    }
  }
  live.clear();
}

/** Inside each copy's temporary folder: who made it, so a later run can clean up after a crash. */
const OWNER_FILE = "owner.json";

interface CopyOwner {
  readonly pid: number;
  /** The top of the repository whose worktree list names the copy; absent for a folder copy. */
  readonly top?: string;
}

function ownerOf(top: string | undefined): CopyOwner {
  return { pid: process.pid, ...(top === undefined ? {} : { top }) };
}

/**
 * Removes the copies a killed process left (SIGKILL, a power cut: no exit handler ran): every
 * `coding-agent-subagent-*` folder in the temp dir that this user owns and whose owner
 * process is gone, with its worktree entry in the repository it was made from. A copy of a
 * live process, a folder without an owner file and one of another user are left alone.
 * Returns the folders removed.
 */
export async function removeOrphanedCopies(tempDir = os.tmpdir()): Promise<string[]> {
  const names = await readdir(tempDir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names.filter((entry) => entry.startsWith(COPY_PREFIX))) {
    const temp = path.join(tempDir, name);
    const owner = await readOwner(temp);
    if (owner === undefined || isProcessAlive(owner.pid)) continue;
    const tree = path.join(temp, "tree");
    const top = owner.top;
    if (top === undefined) await rm(temp, { recursive: true, force: true });
    else {
      await oneAtATime(top, async () => {
        await git(["worktree", "remove", "--force", tree], { cwd: top }).catch(() => {});
        await rm(temp, { recursive: true, force: true });
        await git(["worktree", "prune"], { cwd: top }).catch(() => {});
      });
    }
    removed.push(temp);
  }
  return removed;
}

async function readOwner(temp: string): Promise<CopyOwner | undefined> {
  const stats = await lstat(temp).catch(() => undefined);
  // Only a real folder of this user: a link, or another user's folder, is not ours to remove.
  if (stats === undefined || !stats.isDirectory() || stats.uid !== process.getuid?.())
    return undefined;
  const text = await readFile(path.join(temp, OWNER_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return undefined;
    const { pid, top } = value as Record<string, unknown>;
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return undefined;
    if (top !== undefined && (typeof top !== "string" || !path.isAbsolute(top))) return undefined;
    return { pid: pid as number, ...(top === undefined ? {} : { top }) };
  } catch {
    return undefined;
  }
}

interface Repository {
  readonly top: string;
  /** The workspace relative to the top, `/`-separated; "" when it is the top. */
  readonly prefix: string;
  readonly objects: string;
}

async function repositoryOf(workspace: string): Promise<Repository | undefined> {
  const found = await git(
    ["rev-parse", "--show-toplevel", "--path-format=absolute", "--git-common-dir"],
    {
      cwd: workspace,
    },
  ).catch(() => undefined);
  if (found === undefined) return undefined;
  // A repository without a commit has no HEAD to start a worktree at: copy the folder.
  const head = await git(["rev-parse", "--verify", "--quiet", "HEAD"], { cwd: workspace }).catch(
    () => undefined,
  );
  if (head === undefined) return undefined;
  const [top, common] = found.trimEnd().split("\n");
  if (top === undefined || common === undefined) return undefined;
  const prefix = path.relative(top, workspace).split(path.sep).join("/");
  return { top, prefix, objects: path.join(common, "objects") };
}

/**
 * The tail of each repository's worktree bookkeeping in this process (add, remove, prune),
 * by the repository's top. Git does not make these safe to run together: `worktree add`
 * reads the other entries while another `add` is still writing its own ("fatal: failed to
 * read .git/worktrees/tree1/commondir", seen with three children starting at once), and a
 * `prune` can take an entry still being made for a stale one.
 */
const worktreeQueues = new Map<string, Promise<unknown>>();

/** Runs `step` once every worktree step before it on the same repository has ended. */
function oneAtATime<T>(top: string, step: () => Promise<T>): Promise<T> {
  const run = (worktreeQueues.get(top) ?? Promise.resolve()).then(step);
  const tail = run.catch(() => undefined);
  worktreeQueues.set(top, tail);
  void tail.then(() => {
    if (worktreeQueues.get(top) === tail) worktreeQueues.delete(top);
  });
  return run;
}

async function worktreeCopy(
  repo: Repository,
  temp: string,
  tree: string,
  remove: () => Promise<void>,
  cleanup: (() => Promise<void>)[],
): Promise<IsolatedCopy> {
  await oneAtATime(repo.top, () =>
    git(["worktree", "add", "--detach", "--quiet", tree, "HEAD"], { cwd: repo.top }),
  );
  cleanup.push(() =>
    oneAtATime(repo.top, async () => {
      await git(["worktree", "remove", "--force", tree], { cwd: repo.top }).catch(() => {});
      await rm(tree, { recursive: true, force: true });
      await git(["worktree", "prune"], { cwd: repo.top });
    }),
  );
  // The parent's uncommitted state: tracked changes (staged or not) and untracked files.
  const changed = await git(["diff", "HEAD", "--binary", "--no-color", "--no-ext-diff"], {
    cwd: repo.top,
  });
  if (changed.length > 0) {
    await git(["apply", "--binary", "--whitespace=nowarn"], { cwd: tree, input: changed });
  }
  const untracked = await git(["ls-files", "--others", "--exclude-standard", "-z"], {
    cwd: repo.top,
  });
  for (const file of untracked.split("\0").filter((name) => name.length > 0)) {
    await copyEntry(path.join(repo.top, file), path.join(tree, file));
  }
  const gitDir = (
    await git(["rev-parse", "--path-format=absolute", "--git-dir"], { cwd: tree })
  ).trim();
  const index = path.join(temp, "index");
  await copyFile(path.join(gitDir, "index"), index);
  // Git takes a repository without its object folder for no repository at all.
  await mkdir(path.join(temp, "objects"), { recursive: true });
  const env = {
    GIT_INDEX_FILE: index,
    GIT_OBJECT_DIRECTORY: path.join(temp, "objects"),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objects,
  };
  const snapshot = new Snapshot({ cwd: tree, env, force: false });
  const start = await snapshot.take();
  const childWorkspace = repo.prefix === "" ? tree : path.join(tree, repo.prefix);
  return {
    kind: "worktree",
    workspace: childWorkspace,
    changes: (isAllowed) => snapshot.changesSince(start, repo.prefix, isAllowed),
    remove,
  };
}

async function folderCopy(
  workspace: string,
  temp: string,
  tree: string,
  remove: () => Promise<void>,
): Promise<IsolatedCopy> {
  // Symlinks are copied as links (never followed): a link to outside stays a link.
  await cp(workspace, tree, { recursive: true, verbatimSymlinks: true, errorOnExist: true });
  const gitDir = path.join(temp, "snapshot.git");
  await git(["init", "--quiet", "--bare", gitDir], { cwd: temp });
  const env = { GIT_DIR: gitDir, GIT_WORK_TREE: tree };
  // --force: a .gitignore in a folder that is no repository ignores nothing.
  const snapshot = new Snapshot({ cwd: tree, env, force: true });
  const start = await snapshot.take();
  return {
    kind: "copy",
    workspace: tree,
    changes: (isAllowed) => snapshot.changesSince(start, "", isAllowed),
    remove,
  };
}

/** A private index over the copy: `take` stages everything and writes its tree. */
class Snapshot {
  readonly #cwd: string;
  readonly #env: Record<string, string>;
  readonly #force: boolean;
  constructor(options: { cwd: string; env: Record<string, string>; force: boolean }) {
    this.#cwd = options.cwd;
    this.#env = options.env;
    this.#force = options.force;
  }

  async take(): Promise<string> {
    await this.#git(["add", "--all", ...(this.#force ? ["--force"] : []), "--", "."]);
    return (await this.#git(["write-tree"])).trim();
  }

  async changesSince(
    start: string,
    prefix: string,
    isAllowed: (file: string) => boolean,
  ): Promise<CopyChanges> {
    await this.take();
    const names = await this.#git(["diff", "--cached", "--no-renames", "--name-only", "-z", start]);
    const files: string[] = [];
    const excluded: string[] = [];
    for (const name of names.split("\0").filter((entry) => entry.length > 0)) {
      const inside = prefix === "" || name.startsWith(`${prefix}/`);
      const relative = prefix === "" ? name : name.slice(prefix.length + 1);
      if (inside && isAllowed(relative)) files.push(relative);
      else excluded.push(inside ? relative : path.posix.relative(prefix, name));
    }
    if (files.length === 0) return { patch: "", files, excluded };
    const pathspecs = files.map(
      (file) => `:(literal)${prefix === "" ? file : `${prefix}/${file}`}`,
    );
    const patch = await this.#git([
      "diff",
      "--cached",
      "--no-renames",
      "--no-color",
      "--no-ext-diff",
      ...(prefix === "" ? [] : [`--relative=${prefix}`]),
      start,
      "--",
      ...pathspecs,
    ]);
    return { patch, files, excluded };
  }

  #git(args: readonly string[]): Promise<string> {
    return git(args, { cwd: this.#cwd, env: this.#env });
  }
}

/** Copies one untracked entry: a symlink as a link, a file with its mode. */
async function copyEntry(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  const stats = await lstat(from);
  if (stats.isSymbolicLink()) await symlink(await readlink(from), to);
  else if (stats.isFile()) await copyFile(from, to);
}

/** Runs git with no inherited `GIT_*` variable (a hook's GIT_DIR must not redirect it). */
function git(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<string> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) env[key] = value;
  }
  Object.assign(env, { GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" }, options.env);
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      ["-c", "core.quotePath=false", "-c", "core.autocrlf=false", ...args],
      { cwd: options.cwd, env, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`git ${args[0] ?? ""} 失败：${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
