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
  // 两边的路径都要看：只在运行后才有的是新增，只在运行前才有的是删除。
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((file) => before.get(file) !== after.get(file)).sort();
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
  const touched = changed.filter((file) => forbidden(file));
  return touched.length === 0
    ? { pass: true, detail: "forbiddenPaths 里的文件与夹具逐字节相同" }
    : { pass: false, detail: `改动了禁止的文件：${touched.join(", ")}` };
  // #endregion exercise
}
