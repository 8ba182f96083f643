import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, realpath, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { COPIES_DIR } from "./lab-copies.ts";
import { type ReadmeBlock, readmeBlocks } from "./readme-blocks.ts";

/**
 * The commands of a README's `cli` output blocks: a block marked `<!-- output: cli -->`
 * shows what the `bash` block right before it prints (stdout and stderr together, as a
 * terminal shows them). Its commands are that block's lines, run as one bash script (the
 * fence says `bash`; a learner on zsh meets the same result only where the shells agree,
 * which is why a README writes JSON with a quoted heredoc rather than `echo`).
 */
export interface CommandBlock {
  /** 1-based line of the output block's opening fence (its key in the results). */
  readonly line: number;
  /** The bash block's text, or why the output block has none. */
  readonly script: string | undefined;
}

/** Each `cli` output block of a README with the bash block it shows the output of. */
export function commandBlocks(readme: string): CommandBlock[] {
  const blocks = readmeBlocks(readme);
  return blocks.flatMap((block, index) => {
    if (block.mark !== "cli") return [];
    const before: ReadmeBlock | undefined = blocks[index - 1];
    const script = before?.info === "bash" ? before.lines.join("\n") : undefined;
    return [{ line: block.line, script }];
  });
}

/** What one block's commands printed, or why they could not be run. */
export type CommandRun =
  | { readonly ok: true; readonly lines: readonly string[] }
  | { readonly ok: false; readonly problem: string };

/** How a folder `mktemp -d` made is shown: its template, the random part as X's. */
const TMP_SHOWN = "/tmp/tmp.XXXXXXXXXX";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A README's commands run for longer than this have hung: the block fails. */
const BLOCK_TIMEOUT_MS = 60_000;

/**
 * Runs the `cli` blocks' commands of one lab's README, in README order, in one scratch
 * folder that looks like the repository root to them: `labs/`, `checkpoints/`,
 * `packages/` and `node_modules/` lead to the real ones, except that this lab's
 * `starter/src` is the committed starter (so a learner's edits do not change the output the
 * README is checked against). Files the commands write (a script, a demo workspace) land
 * in the scratch folder, which is removed afterwards; the repository is not changed, and
 * `coding-agent` keeps its run records in a temporary `$CODING_AGENT_HOME`, not the
 * learner's. `node_modules/.bin` of the repository is on the PATH, so `pnpm exec
 * coding-agent` works from there.
 *
 * The blocks are one terminal session, as a learner types them: a block starts in the
 * folder the one before it ended in, with the variables it exported. A folder made with
 * `mktemp -d` is printed as `/tmp/tmp.XXXXXXXXXX`, the name's random part as mktemp's
 * template writes it, so a README can show a path the CLI prints there.
 */
export async function runReadmeCommands(options: {
  readonly repoRoot: string;
  readonly labDir: string;
  readonly pristineSrcDir: string;
  readonly readme: string | undefined;
}): Promise<Map<number, CommandRun>> {
  const runs = new Map<number, CommandRun>();
  const blocks = options.readme === undefined ? [] : commandBlocks(options.readme);
  if (blocks.length === 0) return runs;
  const scratch = await realpath(await mkdtemp(path.join(os.tmpdir(), "lab-kit-readme-")));
  // Outside the scratch folder (a command listing its folder would see it otherwise): the
  // commands' `coding-agent` runs keep their records here, never in the learner's home.
  let home: string | undefined;
  let session: Session | undefined;
  try {
    home = await mkdtemp(path.join(os.tmpdir(), "lab-kit-readme-home-"));
    session = await startSession();
    await linkRepository(options, scratch);
    for (const block of blocks) {
      if (block.script === undefined) {
        runs.set(block.line, {
          ok: false,
          problem: "前面没有紧挨着的 ```bash 命令块，不知道这是哪条命令的输出",
        });
        continue;
      }
      runs.set(
        block.line,
        await runScript(block.script, {
          cwd: scratch,
          repoRoot: options.repoRoot,
          home,
          session,
        }),
      );
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
    if (home !== undefined) await rm(home, { recursive: true, force: true });
    if (session !== undefined) await rm(session.dir, { recursive: true, force: true });
  }
  return runs;
}

async function linkRepository(
  options: { readonly repoRoot: string; readonly labDir: string; readonly pristineSrcDir: string },
  scratch: string,
): Promise<void> {
  await symlink(path.join(options.repoRoot, "checkpoints"), path.join(scratch, "checkpoints"));
  await symlink(path.join(options.repoRoot, "packages"), path.join(scratch, "packages"));
  const modules = path.join(options.repoRoot, "node_modules");
  if (existsSync(modules)) await symlink(modules, path.join(scratch, "node_modules"));
  const labsDir = path.join(options.repoRoot, "labs");
  const labName = path.basename(options.labDir);
  await mkdir(path.join(scratch, "labs"));
  for (const lab of await readdir(labsDir)) {
    if (lab !== labName) await symlink(path.join(labsDir, lab), path.join(scratch, "labs", lab));
  }
  const lab = path.join(scratch, "labs", labName);
  await linkEntries(options.labDir, lab, { starter: undefined });
  const starter = path.join(options.labDir, "starter");
  await linkEntries(starter, path.join(lab, "starter"), { src: options.pristineSrcDir });
}

/** A real folder whose entries lead to `from`'s, some replaced (`undefined`: made by the caller). */
async function linkEntries(
  from: string,
  to: string,
  replaced: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  await mkdir(to);
  for (const entry of await readdir(from)) {
    if (entry === COPIES_DIR) continue;
    if (entry in replaced) {
      const target = replaced[entry];
      if (target !== undefined) await symlink(target, path.join(to, entry));
      continue;
    }
    await symlink(path.join(from, entry), path.join(to, entry));
  }
}

/**
 * What carries one block's terminal over to the next: the folder it ended in and its
 * exported variables (written by the block's EXIT trap), and the `$TMPDIR` its `mktemp`
 * makes folders in.
 */
interface Session {
  readonly dir: string;
  readonly tmp: string;
}

async function startSession(): Promise<Session> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "lab-kit-readme-session-")));
  const tmp = path.join(dir, "tmp");
  await mkdir(tmp);
  return { dir, tmp };
}

/** The bash text that runs a block as the next command typed into the session's terminal. */
function sessionScript(script: string, session: Session): string {
  const cwd = JSON.stringify(path.join(session.dir, "cwd"));
  const env = JSON.stringify(path.join(session.dir, "env"));
  return [
    // One pipe for both streams, so the lines keep the order a terminal shows.
    "exec 2>&1",
    `if [ -f ${env} ]; then . ${env}; fi`,
    `if [ -f ${cwd} ]; then cd "$(cat ${cwd})"; fi`,
    `trap 'pwd > ${cwd}; export -p > ${env}' EXIT`,
    script,
  ].join("\n");
}

/** Runs one block's commands in `cwd`, with `home` as their `$CODING_AGENT_HOME`. */
function runScript(
  script: string,
  place: {
    readonly cwd: string;
    readonly repoRoot: string;
    readonly home: string;
    readonly session: Session;
  },
): Promise<CommandRun> {
  const { cwd, repoRoot, home, session } = place;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CODING_AGENT_HOME: home,
    NO_COLOR: "1",
    TMPDIR: session.tmp,
    PATH: [path.join(repoRoot, "node_modules", ".bin"), process.env.PATH].join(path.delimiter),
  };
  delete env.FORCE_COLOR;
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", sessionScript(script, session)], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "ignore"],
      detached: true,
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, BLOCK_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, problem: `无法运行 bash：${error.message}` });
    });
    child.on("close", (_code, signal) => {
      clearTimeout(timer);
      if (signal === "SIGKILL") {
        resolve({ ok: false, problem: `命令 ${BLOCK_TIMEOUT_MS / 1000} 秒还没有结束` });
        return;
      }
      const text = Buffer.concat(chunks)
        .toString("utf8")
        .split(cwd)
        .join(".")
        .replace(new RegExp(`${escapeRegExp(session.tmp)}/tmp\\.[A-Za-z0-9]{10}`, "g"), TMP_SHOWN)
        .split(session.tmp)
        .join("/tmp");
      const lines = text.replace(/\n$/, "").split("\n");
      resolve({ ok: true, lines: text === "" ? [] : lines });
    });
  });
}
