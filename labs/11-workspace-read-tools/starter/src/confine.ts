import { realpathSync } from "node:fs";
import path from "node:path";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import { isInside, locateRealPath, type Workspace, type WorkspacePath } from "@coding-agent/tools";

/**
 * 第 11 课：工作区的围墙。
 *
 * 模型给出的每个路径（read_file、list_files、search 的 path）都先经过
 * `resolveInWorkspace`：它回答“这个路径真正指向哪里，那里在不在工作区里”。
 * 不在，就是 `path_outside_workspace`，工具什么也不读。
 *
 * 读文件、列目录、搜索的其余部分来自总项目 `@coding-agent/tools`，
 * 它们只认 `Workspace.resolve` 的回答：围墙只有这一道。
 */

/** 拒绝时返回的错误：只带模型写下的路径，不透露外面有什么。 */
export function outsideWorkspace(requested: string): ToolErrorResult {
  return toolError("path_outside_workspace", `路径在工作区之外：${JSON.stringify(requested)}`);
}

/** 工作区根目录之下的相对路径，分隔符统一写 `/`；根目录本身是 `.`。 */
export function toRelative(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === "" ? "." : relative.split(path.sep).join("/");
}

/**
 * 把模型给出的路径解析到工作区内（`root` 是根目录的真实路径）。
 * 真实位置（符号链接全部解析之后）在工作区之外的一律拒绝：`..`、外面的绝对路径、
 * 指向外面的符号链接、经过链接到外面的父目录、含 NUL 字节的路径、Windows 写法的 `..\`。
 */
export async function resolveInWorkspace(
  root: string,
  requested: string,
): Promise<WorkspacePath | ToolErrorResult> {
  // #region exercise
  // TODO(lab-11): 现在模型给什么路径就接受什么：`../x`、外面的绝对路径、指向外面的符号链接都能读到。
  // 在这里补上围墙：只有真实位置（符号链接全部解析之后）在工作区之内的路径才接受，其余一律
  // 用上面写好的拒绝回答。先挡住字面上就在外面的路径，再看它真正通向哪里；不存在的文件要看它
  // 将会落在哪里；模型写的 Windows 风格路径和夹带 NUL 字节的路径也要考虑。接受时交出真实位置。
  // 卡住时运行 pnpm lesson hint 11，提示由浅入深。
  const absolute = path.resolve(root, requested);
  const real = await locateRealPath(absolute);
  return {
    ok: true,
    absolute,
    relative: toRelative(root, absolute),
    exists: real?.exists === true,
  };
  // #endregion exercise
}

/**
 * 以 `dir` 的真实路径为根的工作区，`resolve` 就是上面的围墙。
 * 交给总项目的 `readWorkspaceFile` / `listWorkspaceFiles` / `searchWorkspace` 使用。
 */
export function createConfinedWorkspace(dir: string): Workspace {
  // 根目录本身也可能是经过符号链接到达的：解析一次，之后的比较都在真实路径之间进行。
  const root = realpathSync.native(path.resolve(dir));
  return {
    root,
    contains: (absolute) => isInside(root, absolute),
    resolve: (requested) => resolveInWorkspace(root, requested),
  };
}
