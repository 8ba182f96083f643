import { rmdir } from "node:fs/promises";
import { type FileOps, RollbackError, type WrittenChange } from "@coding-agent/tools";

/**
 * The rollback of `apply_edits`: called when a write fails midway, with every change
 * that reached the disk (the one whose write failed last; it may or may not have
 * landed). Undoes them last first: a file that existed gets its exact previous bytes
 * and mode back; a file the transaction created is removed (gone already is fine),
 * then the folders made for it, innermost first, if empty. One restore failing does
 * not stop the others; afterwards a `RollbackError` names every file not restored.
 */
export async function rollBack(written: readonly WrittenChange[], fileOps: FileOps): Promise<void> {
  // #region exercise
  // TODO(lab-18): 撤销 written 里已经写到磁盘上的每一个改动，从最后一个往前：
  //   - 原来就有的文件（change.before 不是 null）：用 fileOps.writeAtomic 写回 change.before，
  //     带上 change.mode，字节与权限都和写之前一样；
  //   - 这次新建的文件（change.before 是 null）：用 fileOps.remove 删掉（已经不在也算成功，ENOENT），
  //     再从里到外删掉 createdDirs 里为它建的空文件夹（rmdir）；
  //   - 某一个恢复失败了，继续恢复其余的；全部试过之后抛出 RollbackError，写明哪些文件没恢复。
  //   现在的写法什么都不撤销：第二个文件写失败时，第一个文件停在改了一半的状态。
  void written;
  void fileOps;
  void rmdir;
  void RollbackError;
  // #endregion exercise
}
