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
 * write). Ids are `<callId>-<n>`, the call id reduced to id characters; an existing file
 * is never overwritten (a resumed run's store starts counting again). The text arrives
 * redacted; an id of any other shape reads as missing, so nothing outside `dir` is read.
 */
export function createFileArtifactStore(dir: string): ArtifactStore {
  let count = 0;
  return {
    async put(text, meta) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const base = meta.callId.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 48) || "artifact";
      while (true) {
        count += 1;
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
