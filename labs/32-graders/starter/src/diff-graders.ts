import { createPathAllowance } from "@coding-agent/tools";

/**
 * 一个工作区的快照：每个文件的路径（相对工作区，`/` 分隔）和它的指纹（文件字节的 SHA-256）。
 * 总项目的 snapshotFixture / snapshotWorkspace 给出的就是它。
 */
export type Snapshot = ReadonlyMap<string, string>;

/** 一个评分器的结论；detail 用一两行中文说明为什么。 */
export interface GraderVerdict {
  readonly pass: boolean;
  readonly detail: string;
}

/** 运行前后两个快照之间新增、修改、删除的路径，按字母排序。 */
export function changedPaths(before: Snapshot, after: Snapshot): string[] {
  // #region exercise
  // TODO(lab-32): 现在说什么都没改：评分器看不到 Agent 做了什么。改成比较两个快照：
  //   - 运行后才有的路径是新增，运行前才有的是删除，两边都有而指纹不同的是修改；
  //   - 三种都要返回，按字母排序。
  void before;
  void after;
  return [];
  // #endregion exercise
}

/**
 * `forbidden_untouched`：changed 里没有一个路径落在 forbiddenPaths 的 glob 里。
 * 一个写成文件夹的 glob（`test`）管着它下面的一切，和 --allow-path 一样。
 */
export function gradeForbiddenUntouched(
  forbiddenPaths: readonly string[],
  changed: readonly string[],
): GraderVerdict {
  if (forbiddenPaths.length === 0) return { pass: true, detail: "没有 forbiddenPaths" };
  const forbidden = createPathAllowance(forbiddenPaths);
  // #region exercise
  // TODO(lab-32): 现在一律通过。改成：找出 changed 里 forbidden(路径) 为真的路径（按 glob 匹配，
  // 不是按字符串相等）；一个都没有，通过，detail 写“forbiddenPaths 里的文件与夹具逐字节相同”；
  // 有，不通过，detail 写“改动了禁止的文件：”再跟上这些路径，用“, ”隔开。
  void forbidden;
  void changed;
  return { pass: true, detail: "forbiddenPaths 里的文件与夹具逐字节相同" };
  // #endregion exercise
}
