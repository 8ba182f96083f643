import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir, rename, unlink } from "node:fs/promises";
import path from "node:path";

/**
 * The file operations an edit transaction performs. Tests substitute one that fails
 * on a chosen call, to prove the rollback; everything else uses `NODE_FILE_OPS`.
 */
export interface FileOps {
  /** Replaces (or creates) `absolute` with `bytes` so readers see the old or the new bytes, never a mix. */
  writeAtomic(absolute: string, bytes: Uint8Array, mode?: number): Promise<void>;
  /** Removes a file the transaction created. */
  remove(absolute: string): Promise<void>;
}

/** How `writeFileAtomic`'s temporary files end (`.<name>.<12 hex>.tmp`). */
const TEMP_SUFFIX = ".tmp";

/**
 * Writes to a fresh temporary file beside the target (same folder, so the same
 * filesystem), flushes it, then renames it over the target: `rename` is atomic, so a
 * crash or a concurrent reader never sees half a file. `mode` (an existing file's
 * permission bits) is set exactly; without it the process umask applies.
 */
export async function writeFileAtomic(
  absolute: string,
  bytes: Uint8Array,
  mode?: number,
): Promise<void> {
  const temp = path.join(
    path.dirname(absolute),
    `.${path.basename(absolute)}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`,
  );
  // O_EXCL | O_NOFOLLOW: never write through something planted under the temp name.
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o666,
  );
  try {
    try {
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, absolute);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Removes the temporary files `writeFileAtomic` left beside `absolute` when the process
 * was killed between creating one and renaming it (a crash skips the cleanup above).
 * Only names of exactly its shape (`.<name>.<12 hex>.tmp`) are touched; returns the
 * paths removed.
 */
export async function removeLeftoverTemps(absolute: string): Promise<string[]> {
  const dir = path.dirname(absolute);
  const prefix = `.${path.basename(absolute)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) continue;
    const middle = name.slice(prefix.length, -TEMP_SUFFIX.length);
    if (!/^[0-9a-f]{12}$/.test(middle)) continue;
    const temp = path.join(dir, name);
    await unlink(temp).then(
      () => removed.push(temp),
      () => undefined,
    );
  }
  return removed;
}

/** The real filesystem. */
export const NODE_FILE_OPS: FileOps = {
  writeAtomic: writeFileAtomic,
  remove: (absolute) => unlink(absolute),
};
