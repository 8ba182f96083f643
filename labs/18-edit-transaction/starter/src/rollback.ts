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
  // TODO(lab-18): 让工作区回到这次事务之前的样子。written 按写入的顺序列出已经碰过磁盘的改动
  //   （最后一项是写失败的那个，它可能落盘了，也可能没有）。要做到：
  //   - 原来就有的文件：字节和权限都和写之前一样；
  //   - 这次新建的文件，以及为它新建的文件夹：都不再存在（本来就没建出来的，不算恢复失败）；
  //   - 一项恢复不了，不妨碍其余各项；全部试过之后抛出错误，写明哪些文件没恢复。
  //   用得上的都在参数和本文件的 import 里；卡住时运行 pnpm lesson hint 18。
  //   现在的写法什么都不撤销：第二个文件写失败时，第一个文件停在新内容上。
  void written;
  void fileOps;
  void rmdir;
  void RollbackError;
  // #endregion exercise
}
