import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";
import type { Workspace } from "../workspace.ts";
import { createWorkspaceVersioner } from "../workspace-version.ts";
import type { FileChange } from "./plan-changes.ts";

/** A unified diff with its line counts per file. */
export interface EditDiff {
  /** `--- a/path` / `+++ b/path` hunks (`/dev/null` for a created file). */
  readonly patch: string;
  readonly files: ReadonlyArray<{
    readonly path: string;
    readonly added: number;
    readonly removed: number;
  }>;
}

/** The changes one run's edit tools made, for its diff. */
export interface EditSession {
  /** Called after a transaction commits. */
  record(changes: readonly FileChange[]): void;
  /** The unified diff from each file's bytes before the run's first edit to its last. */
  diff(): EditDiff;
}

/** Creates the record of one run's edits. */
export function createEditSession(): EditSession {
  const files = new Map<string, { before: Buffer | null; after: Buffer }>();
  return {
    record(changes) {
      for (const change of changes) {
        const known = files.get(change.relative);
        files.set(change.relative, {
          before: known ? known.before : change.before,
          after: change.after,
        });
      }
    },
    diff() {
      return diffChanges(
        [...files].map(([relative, { before, after }]) => ({ relative, before, after })),
      );
    },
  };
}

/** The unified diff of `changes` (files whose bytes did not change are left out). */
export function diffChanges(
  changes: ReadonlyArray<Pick<FileChange, "relative" | "before" | "after">>,
): EditDiff {
  const patches: string[] = [];
  const files: Array<{ path: string; added: number; removed: number }> = [];
  for (const change of [...changes].sort((a, b) => a.relative.localeCompare(b.relative))) {
    if (change.before?.equals(change.after)) continue;
    const patch = structuredPatch(
      change.before === null ? "/dev/null" : `a/${change.relative}`,
      `b/${change.relative}`,
      change.before?.toString("utf8") ?? "",
      change.after.toString("utf8"),
      undefined,
      undefined,
      { context: 3 },
    );
    let added = 0;
    let removed = 0;
    for (const hunk of patch.hunks) {
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added++;
        else if (line.startsWith("-")) removed++;
      }
    }
    patches.push(formatPatch(patch, FILE_HEADERS_ONLY));
    files.push({ path: change.relative, added, removed });
  }
  return { patch: patches.join(""), files };
}

/**
 * The workspace version (docs/contracts.md §7): a hash over the path and bytes of every file,
 * `.git/` and `node_modules/` left out, a symlink counted by its target text and never
 * followed. It changes exactly when some file's path or bytes change (times and
 * permissions do not count); the finish gate's evidence uses the same version.
 */
export async function workspaceVersion(workspace: Workspace): Promise<string> {
  return (await createWorkspaceVersioner(workspace.root).snapshot()).version;
}
