/** The marker lines that open and close an exercise region, in starter and solution. */
export const REGION_START = "// #region exercise";
export const REGION_END = "// #endregion exercise";

/** One exercise region: 0-based line indexes of its opening and closing marker lines. */
export interface ExerciseRegion {
  readonly start: number;
  readonly end: number;
}

/** The regions of a file, or why its markers do not pair up. */
export type RegionScan =
  | { readonly ok: true; readonly regions: readonly ExerciseRegion[] }
  | { readonly ok: false; readonly problem: string };

/** Splits text into lines, keeping a final newline from producing an extra empty line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Finds the exercise regions of a file's lines; markers may be indented. */
export function findExerciseRegions(lines: readonly string[]): RegionScan {
  const regions: ExerciseRegion[] = [];
  let open: number | undefined;
  for (const [index, line] of lines.entries()) {
    const marker = line.trim();
    if (marker === REGION_START) {
      if (open !== undefined)
        return { ok: false, problem: `第 ${index + 1} 行：区域未关闭就又开始` };
      open = index;
    } else if (marker === REGION_END) {
      if (open === undefined)
        return { ok: false, problem: `第 ${index + 1} 行：没有对应的开始标记` };
      regions.push({ start: open, end: index });
      open = undefined;
    }
  }
  if (open !== undefined) return { ok: false, problem: `第 ${open + 1} 行：区域没有结束标记` };
  return { ok: true, regions };
}

/**
 * The runs of lines between regions (markers in none), each with the 0-based index of its
 * first line: what starter and solution must share.
 */
export function segmentsOutside(
  lines: readonly string[],
  regions: readonly ExerciseRegion[],
): { firstLine: number; lines: string[] }[] {
  const segments: { firstLine: number; lines: string[] }[] = [];
  let next = 0;
  for (const region of regions) {
    segments.push({ firstLine: next, lines: lines.slice(next, region.start) });
    next = region.end + 1;
  }
  segments.push({ firstLine: next, lines: lines.slice(next) });
  return segments;
}
