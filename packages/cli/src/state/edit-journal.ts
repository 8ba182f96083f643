import { constants } from "node:fs";
import { mkdir, open, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { hashBytes } from "@coding-agent/tools";

/** The bytes of one file of an edit: before it (null: the file did not exist) and after. */
export interface EditContents {
  readonly before: Uint8Array | null;
  readonly after: Uint8Array;
}

/**
 * The bytes of a multi-file edit, kept in the run folder from before its first rename
 * until its result is logged (lesson 18's transaction, made to survive a crash). Each
 * rename is atomic, the set of them is not: a process killed between two leaves some
 * files new and some old, and only these bytes let a resume finish the edit or undo it.
 * Blobs are named by their hash under `journal/<idempotency key>/`, readable only by the
 * user (they are the workspace's own bytes, unredacted), and removed once the call is
 * settled.
 */
export interface EditJournal {
  /** Writes and flushes every file's bytes; resolves once they are on disk. */
  save(key: string, contents: readonly EditContents[]): Promise<void>;
  /** The bytes whose hash is `hash`, if the journal holds them intact. */
  read(key: string, hash: string): Promise<Buffer | undefined>;
  /** Removes the call's bytes (its result is logged, or a resume settled it). */
  discard(key: string): Promise<void>;
  /** Removes every call's bytes (the run has finished). */
  clear(): Promise<void>;
}

/** The journal of the run whose folder is `runDir`. */
export function createEditJournal(runDir: string): EditJournal {
  const folderOf = (key: string) => {
    // The key is the intent's idempotency key (hex); anything else never names a folder.
    if (!/^[0-9a-f]{64}$/.test(key)) throw new TypeError(`not an idempotency key: ${key}`);
    return path.join(runDir, "journal", key);
  };
  return {
    async save(key, contents) {
      const folder = folderOf(key);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      const blobs = contents.flatMap((file) =>
        file.before === null ? [file.after] : [file.before, file.after],
      );
      for (const bytes of blobs) await writeSynced(path.join(folder, hashBytes(bytes)), bytes);
      await syncFolder(folder);
    },
    async read(key, hash) {
      const bytes = await readFile(path.join(folderOf(key), hash)).catch(() => undefined);
      // A blob cut short (a crash while saving it) is no copy of the file.
      return bytes !== undefined && hashBytes(bytes) === hash ? bytes : undefined;
    },
    async discard(key) {
      await rm(folderOf(key), { recursive: true, force: true });
    },
    async clear() {
      await rm(path.join(runDir, "journal"), { recursive: true, force: true });
    },
  };
}

async function writeSynced(file: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
    0o600,
  );
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
