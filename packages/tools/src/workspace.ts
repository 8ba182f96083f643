import { realpathSync } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";

/** A path the tools may touch: its real absolute path and its path relative to the root. */
export interface WorkspacePath {
  readonly ok: true;
  /** Real absolute path (symlinks resolved), also for a path that does not exist yet. */
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
      const real = await locateRealPath(lexical);
      if (real === undefined || !contains(real.path)) return outside;
      return {
        ok: true,
        absolute: real.path,
        relative: toRelative(root, real.path),
        exists: real.exists,
      };
    },
  };
}

/** Where a path really leads, and whether something is there. */
export interface RealLocation {
  /** The real absolute path: every symlink on the way resolved, a missing tail kept as written. */
  readonly path: string;
  readonly exists: boolean;
}

/** Symlinks followed for one path before giving up, as the kernel's own ELOOP limit. */
const MAX_SYMLINK_HOPS = 40;

/**
 * The real place an absolute path leads to. For a path that exists, its `realpath`.
 * For one that does not (yet), the real path of its deepest existing part joined with
 * the rest, following dangling symlinks hop by hop: `a -> b -> ../outside/new.txt`
 * leads outside even though nothing is there, and a write (week 4) would land there.
 * Undefined when it cannot be known (a symlink loop, more than 40 hops, an unreadable
 * link): a caller must refuse such a path.
 */
export async function locateRealPath(absolute: string): Promise<RealLocation | undefined> {
  return locateFrom(absolute, new Set());
}

/** `locateRealPath`, remembering the dangling links already followed: one seen twice is a loop. */
async function locateFrom(
  absolute: string,
  followed: Set<string>,
): Promise<RealLocation | undefined> {
  try {
    return { path: await realpath(absolute), exists: true };
  } catch {
    // The path, or a part of it, does not exist (or is a loop): look at what does.
  }
  let current = absolute;
  while (true) {
    const stats = await lstat(current).catch(() => undefined);
    if (stats !== undefined) {
      const rest = path.relative(current, absolute);
      if (!stats.isSymbolicLink()) {
        const real = await realpath(current).catch(() => undefined);
        return real === undefined ? undefined : { path: path.join(real, rest), exists: false };
      }
      // A dangling symlink (or a loop): continue from where it points.
      if (followed.has(current) || followed.size >= MAX_SYMLINK_HOPS) return undefined;
      followed.add(current);
      const target = await danglingTarget(current);
      if (target === undefined) return undefined;
      return locateFrom(path.join(target, rest), followed);
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
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
