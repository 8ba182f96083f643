import { realpathSync } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";

/** A path the tools may touch: its real absolute path and its path relative to the root. */
export interface WorkspacePath {
  readonly ok: true;
  /** Real absolute path (symlinks resolved), or the lexical path when it does not exist. */
  readonly absolute: string;
  /** Relative to the workspace root, with `/` separators; `.` for the root itself. */
  readonly relative: string;
  readonly exists: boolean;
}

/** The folder every tool is confined to. */
export interface Workspace {
  /** The real path of the root (symlinks resolved once, at creation). */
  readonly root: string;
  /**
   * Resolves a model-supplied path. Refuses (`path_outside_workspace`) anything whose
   * real path is not the root or below it; never touches a path that is lexically outside.
   */
  resolve(requested: string): Promise<WorkspacePath | ToolErrorResult>;
  /** True when `absolute` (already real) is the root or inside it. */
  contains(absolute: string): boolean;
}

/** Creates a workspace rooted at the real path of `dir` (which must exist). */
export function createWorkspace(dir: string): Workspace {
  const root = realpathSync.native(path.resolve(dir));
  const contains = (absolute: string) => isInside(root, absolute);
  return {
    root,
    contains,
    async resolve(requested) {
      const outside = toolError(
        "path_outside_workspace",
        `路径在工作区之外：${JSON.stringify(requested)}`,
      );
      // A NUL byte truncates the path in the kernel: what is checked is not what is opened.
      if (requested.includes("\0")) return outside;
      // Models trained on Windows paths send `..\\..\\x`: treat `\` as a separator, never as a name.
      const normalized = requested.replaceAll("\\", "/");
      if (/^[A-Za-z]:/.test(normalized)) return outside;
      const lexical = path.resolve(root, normalized);
      if (!contains(lexical)) return outside;
      const real = await realPathOf(root, lexical);
      if (real.kind === "outside" || (real.kind === "real" && !contains(real.path))) return outside;
      const absolute = real.kind === "real" ? real.path : lexical;
      return {
        ok: true,
        absolute,
        relative: toRelative(root, absolute),
        exists: real.kind === "real",
      };
    },
  };
}

type RealPath =
  | { readonly kind: "real"; readonly path: string }
  | { readonly kind: "missing" }
  | { readonly kind: "outside" };

/**
 * The real path of `lexical`. When it does not exist, the deepest part that does
 * (and a dangling symlink's target) must still be inside, so that `not_found`
 * never reports on a place outside the workspace.
 */
async function realPathOf(root: string, lexical: string): Promise<RealPath> {
  try {
    return { kind: "real", path: await realpath(lexical) };
  } catch {
    // The path, or a part of it, does not exist (or is a symlink loop): look at what does.
  }
  let current = lexical;
  while (isInside(root, current)) {
    const stats = await lstat(current).catch(() => undefined);
    if (stats !== undefined) {
      const real = await realpath(current).catch(() => undefined);
      if (real !== undefined)
        return isInside(root, real) ? { kind: "missing" } : { kind: "outside" };
      // A dangling symlink (or a loop): judge where it points.
      const target = await danglingTarget(current);
      return target !== undefined && isInside(root, target)
        ? { kind: "missing" }
        : { kind: "outside" };
    }
    current = path.dirname(current);
  }
  return { kind: "outside" };
}

/** Where a dangling symlink points, resolved from its real parent folder. */
async function danglingTarget(link: string): Promise<string | undefined> {
  try {
    return path.resolve(await realpath(path.dirname(link)), await readlink(link));
  } catch {
    return undefined;
  }
}

/** True when `candidate` is `root` or below it (not merely sharing a string prefix). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative === "" ||
    (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative))
  );
}

function toRelative(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === "" ? "." : relative.split(path.sep).join("/");
}
