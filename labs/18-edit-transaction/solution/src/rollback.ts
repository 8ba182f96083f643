import { rmdir } from "node:fs/promises";
import { type FileOps, RollbackError, type WrittenChange } from "@coding-agent/tools";

/**
 * `apply_edits` 的回滚：某次写入中途失败时被调用，参数是已经碰过磁盘的每一个改动
 * （写失败的那一个排在最后，它可能已经落盘，也可能没有）。回滚之后，原来就有的文件
 * 回到写之前的字节与权限，这次新建的文件和为它新建的空文件夹都不在了；一个文件恢复
 * 不了不妨碍其余的，全部试过之后用 `RollbackError` 写明没恢复的文件。
 */
export async function rollBack(written: readonly WrittenChange[], fileOps: FileOps): Promise<void> {
  // #region exercise
  const failures: string[] = [];
  for (const { change, createdDirs } of [...written].reverse()) {
    try {
      if (change.before === null) {
        await fileOps.remove(change.absolute).catch((error: NodeJS.ErrnoException) => {
          // 写失败的那个文件可能根本没被建出来。
          if (error.code !== "ENOENT") throw error;
        });
        for (const dir of [...createdDirs].reverse()) await rmdir(dir).catch(() => undefined);
      } else {
        await fileOps.writeAtomic(change.absolute, change.before, change.mode);
      }
    } catch (error) {
      failures.push(
        `${change.relative}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (failures.length > 0) throw new RollbackError(`回滚没能恢复 ${failures.join("；")}`);
  // #endregion exercise
}
