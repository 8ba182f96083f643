import { readFile } from "node:fs/promises";
import path from "node:path";
import { readCommittedTree } from "../git.ts";
import { findExerciseRegions, segmentsOutside, splitLines } from "./exercise-regions.ts";

/** Where a learner's file differs from the pristine starter outside its exercise regions. */
export type OutsideEdit =
  /** Lines changed between regions: 1-based, in the learner's file, first to last. */
  | { readonly file: string; readonly kind: "lines"; readonly from: number; readonly to: number }
  /** The region markers no longer pair up with the pristine file's. */
  | { readonly file: string; readonly kind: "markers" }
  /** A file of the pristine starter that the learner deleted. */
  | { readonly file: string; readonly kind: "deleted" };

// Trailing spaces are not an edit a test could notice.
const sameLine = (a: string | undefined, b: string | undefined) => a?.trimEnd() === b?.trimEnd();

/**
 * The edits a learner made outside the exercise regions of one file, comparing the text
 * between regions with the pristine starter's, run by run. Edits inside a region never
 * count: that is where the learner is meant to write, right or wrong.
 */
export function editsOutsideRegions(
  file: string,
  current: string,
  pristine: string,
): OutsideEdit[] {
  const currentLines = splitLines(current);
  const pristineLines = splitLines(pristine);
  const mine = findExerciseRegions(currentLines);
  const theirs = findExerciseRegions(pristineLines);
  if (!mine.ok || !theirs.ok || mine.regions.length !== theirs.regions.length) {
    return [{ file, kind: "markers" }];
  }
  const before = segmentsOutside(pristineLines, theirs.regions);
  const edits: OutsideEdit[] = [];
  segmentsOutside(currentLines, mine.regions).forEach((segment, index) => {
    const old = before[index]?.lines ?? [];
    const now = segment.lines;
    let head = 0;
    while (head < now.length && head < old.length && sameLine(now[head], old[head])) head += 1;
    let tail = 0;
    while (
      tail < now.length - head &&
      tail < old.length - head &&
      sameLine(now[now.length - 1 - tail], old[old.length - 1 - tail])
    ) {
      tail += 1;
    }
    if (head === now.length && head === old.length) return;
    // A pure deletion has no line of its own: point at the line after it (or the last one).
    const from = segment.firstLine + head + 1;
    const to = Math.max(from, segment.firstLine + now.length - tail);
    edits.push({ file, kind: "lines", from, to });
  });
  return edits;
}

/** What a learner changed in a starter against HEAD: outside the regions, and whether inside. */
export interface StarterEdits {
  readonly outside: readonly OutsideEdit[];
  /** True once the learner has written anything in a region (or changed a file's text). */
  readonly edited: boolean;
}

/**
 * The learner's edits of a starter's committed `src/` files, against HEAD. Undefined when
 * there is no committed starter to compare with (then nobody can say where an edit is).
 * Files the learner added are left out: a new file changes nothing until an edit elsewhere
 * imports it.
 */
export async function findStarterEdits(starterDir: string): Promise<StarterEdits | undefined> {
  const committed = await readCommittedTree(starterDir);
  if (committed === undefined) return undefined;
  const outside: OutsideEdit[] = [];
  let edited = false;
  for (const [file, content] of [...committed].sort(([a], [b]) => a.localeCompare(b))) {
    if (!file.startsWith("src/")) continue;
    let current: string;
    try {
      current = await readFile(path.join(starterDir, ...file.split("/")), "utf8");
    } catch {
      outside.push({ file, kind: "deleted" });
      continue;
    }
    const pristine = content.toString("utf8");
    if (current !== pristine) edited = true;
    outside.push(...editsOutsideRegions(file, current, pristine));
  }
  return { outside, edited };
}

/** {@link findStarterEdits}' edits outside the exercise regions only. */
export async function findOutsideEdits(
  starterDir: string,
): Promise<readonly OutsideEdit[] | undefined> {
  return (await findStarterEdits(starterDir))?.outside;
}

/** One edit in plain Chinese, e.g. `src/index.ts 第 3–5 行`. */
export function describeOutsideEdit(edit: OutsideEdit): string {
  switch (edit.kind) {
    case "lines":
      return edit.from === edit.to
        ? `${edit.file} 第 ${edit.from} 行`
        : `${edit.file} 第 ${edit.from}–${edit.to} 行`;
    case "markers":
      return `${edit.file} 的练习区域标记（// #region exercise）被改动了`;
    case "deleted":
      return `${edit.file} 被删除了`;
    default: {
      const unknown: never = edit;
      return unknown;
    }
  }
}
