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
  const failures: string[] = [];
  for (const { change, createdDirs } of [...written].reverse()) {
    try {
      if (change.before === null) {
        await fileOps.remove(change.absolute).catch((error: NodeJS.ErrnoException) => {
          // The write that failed may never have created the file.
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
