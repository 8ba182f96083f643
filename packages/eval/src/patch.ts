import type { WorkspaceSnapshot } from "./fixture.ts";

/** One file of a patch: how the final workspace differs from the fixture there. */
export interface FileChange {
  /** Relative to the workspace root, `/` separators. */
  readonly path: string;
  readonly change: "added" | "modified" | "removed";
}

/**
 * The patch between two snapshots, file by file and sorted by path: what a run really
 * changed, whichever tool or command changed it (a `rm` run through `run_command` is a
 * `removed` file here, though no edit tool logged it). The capstone's acceptance judges
 * this, not what the agent says it edited.
 */
export function diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): FileChange[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths.flatMap((path): FileChange[] => {
    const was = before.get(path);
    const is = after.get(path);
    if (was === is) return [];
    if (was === undefined) return [{ path, change: "added" }];
    return [{ path, change: is === undefined ? "removed" : "modified" }];
  });
}
