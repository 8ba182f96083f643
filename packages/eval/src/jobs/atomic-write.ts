import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";

/**
 * Writes `text` to `file` so that a reader (or a process started after a crash) sees the old
 * file or the whole new one, never a part: a temporary file beside it, flushed to disk, then
 * renamed over it (a rename within one folder is atomic on POSIX file systems).
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    const handle = await open(temporary, "w", 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
