import {
  type ExerciseRegion,
  findExerciseRegions,
  REGION_START,
  splitLines,
} from "../learner/exercise-regions.ts";

/** Outcome of comparing a starter's sources with its solution's. */
export type RegionCheck =
  | { readonly ok: true; readonly regions: number }
  | { readonly ok: false; readonly problem: string };

/**
 * Proves the starter is the solution minus the exercise: both `src/` trees hold the same
 * files, each file has the same number of `// #region exercise` … `// #endregion exercise`
 * regions in both, every starter region carries a `// TODO(lab-NN)` note, and everything
 * outside the regions is byte-identical. The first problem found names file and line.
 *
 * @param starter pristine starter files, keyed by path relative to the package (`src/…`)
 * @param solution solution files, keyed the same way
 */
export function checkExerciseRegions(
  labId: string,
  starter: ReadonlyMap<string, string>,
  solution: ReadonlyMap<string, string>,
): RegionCheck {
  const files = [...new Set([...starter.keys(), ...solution.keys()])].sort();
  let total = 0;
  for (const file of files) {
    const starterText = starter.get(file);
    const solutionText = solution.get(file);
    if (starterText === undefined) return fail(`${file} 只在 solution 中存在`);
    if (solutionText === undefined) return fail(`${file} 只在 starter 中存在`);
    const result = compareFile(labId, file, starterText, solutionText);
    if (!result.ok) return result;
    total += result.regions;
  }
  if (total === 0) return fail(`没有找到练习区域（${REGION_START}）`);
  return { ok: true, regions: total };
}

function compareFile(
  labId: string,
  file: string,
  starterText: string,
  solutionText: string,
): RegionCheck {
  const starterLines = splitLines(starterText);
  const solutionLines = splitLines(solutionText);
  const starterScan = findExerciseRegions(starterLines);
  if (!starterScan.ok) return fail(`starter/${file} 的区域标记有误：${starterScan.problem}`);
  const solutionScan = findExerciseRegions(solutionLines);
  if (!solutionScan.ok) return fail(`solution/${file} 的区域标记有误：${solutionScan.problem}`);
  const starterRegions = starterScan.regions;
  const solutionRegions = solutionScan.regions;
  if (starterRegions.length !== solutionRegions.length) {
    return fail(
      `${file}：starter 有 ${starterRegions.length} 个练习区域，solution 有 ${solutionRegions.length} 个`,
    );
  }
  const starterSegments = segmentsOutside(starterLines, starterRegions);
  const solutionSegments = segmentsOutside(solutionLines, solutionRegions);
  for (const [index, segment] of starterSegments.entries()) {
    const other = solutionSegments[index] ?? { firstLine: 0, lines: [] };
    const length = Math.max(segment.lines.length, other.lines.length);
    for (let offset = 0; offset < length; offset++) {
      if (segment.lines[offset] !== other.lines[offset]) {
        return fail(
          `${file} 在练习区域之外不同：starter 第 ${segment.firstLine + offset + 1} 行，solution 第 ${other.firstLine + offset + 1} 行`,
        );
      }
    }
  }
  const todo = `// TODO(lab-${labId})`;
  for (const region of starterRegions) {
    const inside = starterLines.slice(region.start + 1, region.end);
    if (!inside.some((line) => line.includes(todo))) {
      return fail(`starter/${file} 第 ${region.start + 1} 行的练习区域缺少 ${todo} 说明`);
    }
  }
  return { ok: true, regions: starterRegions.length };
}

/** The runs of lines between regions, each with the 0-based index of its first line. */
function segmentsOutside(
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

function fail(problem: string): RegionCheck {
  return { ok: false, problem };
}
