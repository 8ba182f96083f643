import { constants } from "node:fs";
import { mkdir, open, rmdir } from "node:fs/promises";
import path from "node:path";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import type { FileOps } from "./atomic-write.ts";
import type { FileChange } from "./plan-changes.ts";

/** A change that reached the disk, and the folders made for it (outermost first). */
export interface WrittenChange {
  readonly change: FileChange;
  readonly createdDirs: readonly string[];
}

/** Undoes the changes already written when a later one fails (lesson 18 passes the learner's). */
export type RollBack = (written: readonly WrittenChange[], fileOps: FileOps) => Promise<void>;

/** Thrown when a rollback itself fails: the workspace is no longer as it was, and the run must stop. */
export class RollbackError extends Error {
  override readonly name = "RollbackError";
}

/**
 * Writes every planned change, or none: before each write the file must still hold
 * the bytes it was planned from (else `stale_file`); if any write fails, every file
 * already written gets its exact previous bytes back and every created file (and
 * folder) is removed, in reverse order. A failure comes back as a tool error saying
 * nothing was changed; a rollback that cannot restore throws `RollbackError`.
 * `undo` is the rollback used, `rollBack` by default.
 */
export async function commitChanges(
  changes: readonly FileChange[],
  fileOps: FileOps,
  undo: RollBack = rollBack,
): Promise<{ readonly ok: true } | ToolErrorResult> {
  const written: WrittenChange[] = [];
  for (const change of changes) {
    try {
      const now = await readIfPresent(change.absolute);
      if (!sameBytes(now, change.before)) {
        await undo(written, fileOps);
        return toolError(
          "stale_file",
          `${change.relative} 在写入前被改动了；已回滚，没有修改任何文件`,
        );
      }
      const createdDirs = change.before === null ? await makeParents(change.absolute) : [];
      written.push({ change, createdDirs });
      await fileOps.writeAtomic(change.absolute, change.after, change.mode);
    } catch (error) {
      await undo(written, fileOps);
      const reason = error instanceof Error ? error.message : String(error);
      return toolError(
        "write_failed",
        `写入 ${change.relative} 失败（${reason}）；已回滚，没有修改任何文件`,
      );
    }
  }
  return { ok: true };
}

/**
 * Undoes `written`, last first: a file that existed gets its previous bytes and
 * mode back; a created one is removed, then the folders made for it, if empty.
 */
export async function rollBack(written: readonly WrittenChange[], fileOps: FileOps): Promise<void> {
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
  if (failures.length > 0)
    throw new RollbackError(`rollback could not restore ${failures.join("; ")}`);
}

/** Creates the missing folders above `absolute`; returns those it created, outermost first. */
async function makeParents(absolute: string): Promise<string[]> {
  const dir = path.dirname(absolute);
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let current = dir; current.length >= first.length; current = path.dirname(current)) {
    created.unshift(current);
    if (current === first) break;
  }
  return created;
}

async function readIfPresent(absolute: string): Promise<Buffer | null> {
  try {
    const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}
