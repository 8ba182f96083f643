import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A secret that must never appear in anything a tool returns. */
export const SECRET = "TOP-SECRET-7f3a";

/** A real temporary layout: a workspace, a folder outside it, and traps between them. */
export interface TempLayout {
  readonly base: string;
  readonly workspace: string;
  readonly outside: string;
  remove(): Promise<void>;
}

/**
 * Creates, on the real filesystem:
 * `outside/secret.txt`, `ws-evil/x.txt` (a sibling sharing the workspace's name as a
 * prefix), and in `ws/`: ordinary files, `.git/`, `node_modules/`, a binary file, a
 * FIFO, case variants of `.git/` and `node_modules/` (one folder each on a case-insensitive
 * filesystem), and symlinks pointing inside, outside, to an outside folder, to the sibling,
 * nowhere, through a chain that dangles outside, and in a loop.
 * `parent` defaults to the system temp folder.
 */
export async function createTempLayout(parent = tmpdir()): Promise<TempLayout> {
  await mkdir(parent, { recursive: true });
  const base = await realpath(await mkdtemp(join(parent, "coding-agent-tools-")));
  const workspace = join(base, "ws");
  const outside = join(base, "outside");
  await mkdir(join(workspace, "src", "deep"), { recursive: true });
  await mkdir(join(workspace, ".git"), { recursive: true });
  await mkdir(join(workspace, "node_modules", "pkg"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await mkdir(join(base, "ws-evil"), { recursive: true });
  await writeFile(join(outside, "secret.txt"), `${SECRET}\n`);
  await writeFile(join(base, "ws-evil", "x.txt"), `${SECRET}\n`);
  await writeFile(join(workspace, "notes.txt"), "第一行\nsecond line\nthird line\n");
  await writeFile(join(workspace, "src", "a.ts"), "export const a = 1;\n// TODO find me\n");
  await writeFile(join(workspace, "src", "deep", "b.ts"), "export const b = 'find me too';\n");
  await writeFile(join(workspace, ".git", "config"), "[core] find me in git\n");
  await writeFile(join(workspace, "node_modules", "pkg", "index.js"), "// find me in deps\n");
  await writeFile(join(workspace, "image.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x66, 0x00]));
  // Binary (a NUL byte early) yet holding the text a search looks for.
  await writeFile(join(workspace, "data.bin"), Buffer.from("\0\0find me in binary\n"));
  await mkdir(join(workspace, ".GIT"), { recursive: true });
  await mkdir(join(workspace, "lib", "Node_Modules", "dep"), { recursive: true });
  await writeFile(join(workspace, ".GIT", "HEAD"), "find me in GIT\n");
  await writeFile(join(workspace, "lib", "Node_Modules", "dep", "x.js"), "// find me in Deps\n");
  await symlink(join(outside, "secret.txt"), join(workspace, "link-out"));
  await symlink("../outside", join(workspace, "dir-out"));
  await symlink("../outside/not-there.txt", join(workspace, "dangling-out"));
  await symlink("notes.txt", join(workspace, "link-in"));
  await symlink("src", join(workspace, "dir-in"));
  await symlink("../ws-evil/x.txt", join(workspace, "link-sibling"));
  await symlink("chain-2", join(workspace, "chain-1"));
  await symlink("../outside/new.txt", join(workspace, "chain-2"));
  await symlink("loop-b", join(workspace, "loop-a"));
  await symlink("loop-a", join(workspace, "loop-b"));
  execFileSync("mkfifo", [join(workspace, "pipe")]);
  return { base, workspace, outside, remove: () => rm(base, { recursive: true, force: true }) };
}
