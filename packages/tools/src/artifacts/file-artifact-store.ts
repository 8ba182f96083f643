import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ArtifactStore } from "@coding-agent/agent-core";

/** What an artifact id may be: letters, digits, `_` and `-`, never a path. */
export const ARTIFACT_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

/** Whether `id` has the shape of an artifact id (nothing like `../x` or `a/b`). */
export function isArtifactId(id: string): boolean {
  return ARTIFACT_ID_PATTERN.test(id);
}

/**
 * An `ArtifactStore` writing `<dir>/<id>.txt` (mode 0600; the folder is made on the first
 * write). Ids are `<base>-<n>`: the base is the call id reduced to id characters (the CLI's
 * `run_command` and `run_tests` give their tool's name), `n` counts that base's artifacts
 * in this store, so an id does not depend on what else the run stored (a replay, whose tools
 * keep nothing, names the context budget's artifacts as the run did). An existing file is
 * never overwritten: its number is skipped (a resumed run's store starts counting again).
 * The text arrives redacted; an id of any other shape reads as missing, so nothing outside
 * `dir` is read.
 */
export function createFileArtifactStore(dir: string): ArtifactStore {
  const counts = new Map<string, number>();
  return {
    async put(text, meta) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const base = meta.callId.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 48) || "artifact";
      while (true) {
        const count = (counts.get(base) ?? 0) + 1;
        counts.set(base, count);
        const id = `${base}-${count}`;
        try {
          await writeFile(path.join(dir, `${id}.txt`), text, { flag: "wx", mode: 0o600 });
          return id;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
      }
    },
    async read(id) {
      if (!isArtifactId(id)) return undefined;
      try {
        return await readFile(path.join(dir, `${id}.txt`), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
  };
}
