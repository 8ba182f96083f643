import { copyFile, mkdir, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { readCommittedTree } from "../git.ts";
import { stateDir } from "./hint-state.ts";
import { compareWithTree, listFiles } from "./working-tree.ts";

/** What a reset would do to a starter. */
export type ResetPlan =
  | {
      readonly kind: "plan";
      readonly committed: ReadonlyMap<string, Buffer>;
      /** Tracked files that differ from HEAD or are missing: rewritten from HEAD. */
      readonly restore: readonly string[];
      /** Untracked files under `src/`: backed up, then deleted. */
      readonly remove: readonly string[];
    }
  /** The starter already matches HEAD: nothing to do. */
  | { readonly kind: "unchanged" }
  /** No committed starter to restore from (not committed, or no repository). */
  | { readonly kind: "uncommitted" };

/**
 * Works out how to bring a starter back to its committed state. Untracked files count
 * only under `src/`: that is where a learner's work lives; elsewhere they are build output.
 */
export async function planReset(starterDir: string): Promise<ResetPlan> {
  const comparison = await compareWithTree(starterDir, await readCommittedTree(starterDir), [
    "src",
  ]);
  if (comparison.state === "uncommitted") return { kind: "uncommitted" };
  const restore = [...comparison.modified, ...comparison.removed].sort();
  if (restore.length === 0 && comparison.added.length === 0) return { kind: "unchanged" };
  return { kind: "plan", committed: comparison.committed, restore, remove: comparison.added };
}

/**
 * The folder a reset backs up into: `.bootcamp/backups/NN-<timestamp>/`, the timestamp as
 * `2025-01-31T08-05-09-123Z`: sortable, and valid in a file name on every system.
 */
export function backupDir(repoRoot: string, lessonId: string, date: Date): string {
  const stamp = date.toISOString().replace(/[:.]/g, "-");
  return path.join(stateDir(repoRoot), "backups", `${lessonId}-${stamp}`);
}

/**
 * Copies every file of the starter (except installed and generated folders) into
 * `target`, keeping relative paths. Fails rather than overwrite an existing backup.
 */
export async function backUpStarter(starterDir: string, target: string): Promise<number> {
  await mkdir(path.dirname(target), { recursive: true });
  await mkdir(target);
  const files = await listFiles(starterDir);
  for (const file of files) {
    const destination = path.join(target, ...file.split("/"));
    await mkdir(path.dirname(destination), { recursive: true });
    await copyFile(path.join(starterDir, ...file.split("/")), destination);
  }
  return files.length;
}

async function removeEmptyDirs(dir: string, keep: string): Promise<void> {
  let current = dir;
  while (current.startsWith(keep) && current !== keep) {
    const entries = await readdir(current).catch(() => ["?"]);
    if (entries.length > 0) return;
    await rmdir(current);
    current = path.dirname(current);
  }
}

/** Applies a plan: rewrites tracked files from HEAD and deletes untracked `src/` files. */
export async function applyReset(
  starterDir: string,
  plan: Extract<ResetPlan, { kind: "plan" }>,
): Promise<void> {
  for (const file of plan.restore) {
    const content = plan.committed.get(file);
    if (content === undefined) continue;
    const destination = path.join(starterDir, ...file.split("/"));
    await mkdir(path.dirname(destination), { recursive: true });
    await writeFile(destination, content);
  }
  const src = path.join(starterDir, "src");
  for (const file of plan.remove) {
    const target = path.join(starterDir, ...file.split("/"));
    await rm(target, { force: true });
    await removeEmptyDirs(path.dirname(target), src);
  }
}
