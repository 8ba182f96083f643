import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** 放在工作区外面的秘密：它出现在任何工具结果里，就是围墙破了。 */
export const SECRET = "LAB11-SECRET-9c1e";

export interface Layout {
  /** 临时目录（真实路径），其下有 ws/、outside/、ws-evil/。 */
  readonly base: string;
  readonly workspace: string;
  readonly outside: string;
  remove(): Promise<void>;
}

/**
 * 在真实文件系统上搭一个工作区和它外面的东西：
 *
 * ```text
 * <base>/outside/secret.txt       工作区外的秘密
 * <base>/ws-evil/x.txt            名字以 "ws" 开头的兄弟目录，也放着秘密
 * <base>/ws/notes.txt、src/a.ts   普通文件
 * <base>/ws/.git/、node_modules/   列表和搜索都应略过
 * <base>/ws/image.bin             二进制文件
 * <base>/ws/link-in -> notes.txt                     留在里面的链接
 * <base>/ws/dir-in -> src                            留在里面的目录链接
 * <base>/ws/link-out -> <base>/outside/secret.txt    指向外面的文件
 * <base>/ws/dir-out -> ../outside                    指向外面的目录
 * <base>/ws/dangling-out -> ../outside/none.txt      悬空，指向外面
 * <base>/ws/chain-1 -> chain-2 -> ../outside/new.txt 一串链接，最后一个悬空在外面
 * <base>/ws/loop-a -> loop-b -> loop-a               循环
 * <base>/ws/link-sibling -> ../ws-evil/x.txt         指向名字相近的兄弟目录
 * ```
 */
export async function createLayout(): Promise<Layout> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "lab-11-")));
  const workspace = join(base, "ws");
  const outside = join(base, "outside");
  await mkdir(join(workspace, "src"), { recursive: true });
  await mkdir(join(workspace, ".git"), { recursive: true });
  await mkdir(join(workspace, "node_modules", "pkg"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await mkdir(join(base, "ws-evil"), { recursive: true });
  await writeFile(join(outside, "secret.txt"), `${SECRET}\n`);
  await writeFile(join(base, "ws-evil", "x.txt"), `${SECRET}\n`);
  await writeFile(join(workspace, "notes.txt"), "第一行\nsecond line\n");
  await writeFile(join(workspace, "src", "a.ts"), "export const a = 1; // find me\n");
  await writeFile(join(workspace, ".git", "config"), "find me in git\n");
  await writeFile(join(workspace, "node_modules", "pkg", "index.js"), "// find me in deps\n");
  await writeFile(join(workspace, "image.bin"), Buffer.from("\0\0find me in binary\n"));
  await symlink("notes.txt", join(workspace, "link-in"));
  await symlink("src", join(workspace, "dir-in"));
  await symlink(join(outside, "secret.txt"), join(workspace, "link-out"));
  await symlink("../outside", join(workspace, "dir-out"));
  await symlink("../outside/none.txt", join(workspace, "dangling-out"));
  await symlink("chain-2", join(workspace, "chain-1"));
  await symlink("../outside/new.txt", join(workspace, "chain-2"));
  await symlink("loop-b", join(workspace, "loop-a"));
  await symlink("loop-a", join(workspace, "loop-b"));
  await symlink("../ws-evil/x.txt", join(workspace, "link-sibling"));
  return { base, workspace, outside, remove: () => rm(base, { recursive: true, force: true }) };
}
