import { readFile } from "node:fs/promises";
import path from "node:path";
import { formatPatch, type StructuredPatchHunk, structuredPatch } from "diff";
import {
  type ExerciseRegion,
  findExerciseRegions,
  segmentsOutside,
  splitLines,
} from "./exercise-regions.ts";
import type { Colors } from "./terminal.ts";
import { listFiles } from "./working-tree.ts";

/** The diff of one source file, starter against solution. */
export interface FileDiff {
  /** Path relative to the package, e.g. `src/index.ts`. */
  readonly file: string;
  /** `regions`: only the exercise regions differ; `whole-file`: the rest differs too. */
  readonly scope: "regions" | "whole-file";
  /** A unified diff, `--- starter/…` against `+++ solution/…`. */
  readonly patch: string;
}

/** Region-by-region hunks, or undefined when the files differ outside their regions. */
function regionHunks(
  starterLines: readonly string[],
  solutionLines: readonly string[],
): StructuredPatchHunk[] | undefined {
  const starter = findExerciseRegions(starterLines);
  const solution = findExerciseRegions(solutionLines);
  if (!starter.ok || !solution.ok) return undefined;
  if (starter.regions.length !== solution.regions.length) return undefined;
  const outside = (lines: readonly string[], regions: readonly ExerciseRegion[]) =>
    segmentsOutside(lines, regions)
      .flatMap((segment) => segment.lines)
      .join("\n");
  if (outside(starterLines, starter.regions) !== outside(solutionLines, solution.regions)) {
    return undefined;
  }
  const hunks: StructuredPatchHunk[] = [];
  starter.regions.forEach((a: ExerciseRegion, index) => {
    const b = solution.regions[index];
    if (b === undefined) return;
    const textA = `${starterLines.slice(a.start, a.end + 1).join("\n")}\n`;
    const textB = `${solutionLines.slice(b.start, b.end + 1).join("\n")}\n`;
    if (textA === textB) return;
    // Whole-region context: the learner sees the region from marker to marker.
    const patch = structuredPatch("a", "b", textA, textB, undefined, undefined, {
      context: Number.MAX_SAFE_INTEGER,
    });
    for (const hunk of patch.hunks) {
      hunks.push({ ...hunk, oldStart: hunk.oldStart + a.start, newStart: hunk.newStart + b.start });
    }
  });
  return hunks;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Diffs the learner's starter against the solution, file by file under `src/`. Where a
 * file differs only inside its exercise regions, the diff shows just those regions; where
 * the learner changed code outside them, the whole file is diffed and marked so.
 */
export async function diffStarterAgainstSolution(
  starterDir: string,
  solutionDir: string,
): Promise<FileDiff[]> {
  const names = new Set([
    ...(await listFiles(path.join(starterDir, "src"))),
    ...(await listFiles(path.join(solutionDir, "src"))),
  ]);
  const diffs: FileDiff[] = [];
  for (const name of [...names].sort()) {
    const file = `src/${name}`;
    const a = await readText(path.join(starterDir, file));
    const b = await readText(path.join(solutionDir, file));
    if (a === b) continue;
    const oldName = a === undefined ? "/dev/null" : `starter/${file}`;
    const newName = b === undefined ? "/dev/null" : `solution/${file}`;
    const hunks =
      a !== undefined && b !== undefined ? regionHunks(splitLines(a), splitLines(b)) : undefined;
    if (hunks?.length === 0) continue;
    const whole = structuredPatch(oldName, newName, a ?? "", b ?? "", undefined, undefined, {
      context: 3,
    });
    const patch = formatPatch(hunks === undefined ? whole : { ...whole, hunks }, {
      includeIndex: false,
      includeUnderline: false,
      includeFileHeaders: true,
    });
    diffs.push({ file, scope: hunks === undefined ? "whole-file" : "regions", patch });
  }
  return diffs;
}

/** Colours a unified diff for a terminal: removals red, additions green, hunks cyan. */
export function colorizePatch(patch: string, colors: Colors): string {
  return patch
    .split("\n")
    .map((line) => {
      if (line.startsWith("---") || line.startsWith("+++")) return colors.bold(line);
      if (line.startsWith("@@")) return colors.cyan(line);
      if (line.startsWith("-")) return colors.red(line);
      if (line.startsWith("+")) return colors.green(line);
      return line;
    })
    .join("\n");
}
