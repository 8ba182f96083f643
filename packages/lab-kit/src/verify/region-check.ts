import {
  findExerciseRegions,
  REGION_START,
  segmentsOutside,
  splitLines,
} from "../learner/exercise-regions.ts";

/** Outcome of comparing a starter's sources with its solution's. */
export type RegionCheck =
  | { readonly ok: true; readonly regions: number }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Proves the starter (pristine, files keyed `src/…`) is the solution minus the exercise:
 * the same files, as many exercise regions in each, a `// TODO(lab-NN)` note in every
 * starter region, byte-identical outside them. Per file, bad markers or differing region
 * counts end its comparison; otherwise each stretch between regions reports its first
 * differing line.
 */
export function checkExerciseRegions(
  labId: string,
  starter: ReadonlyMap<string, string>,
  solution: ReadonlyMap<string, string>,
): RegionCheck {
  const files = [...new Set([...starter.keys(), ...solution.keys()])].sort();
  const problems: string[] = [];
  let total = 0;
  for (const file of files) {
    const starterText = starter.get(file);
    const solutionText = solution.get(file);
    if (starterText === undefined) problems.push(`${file} 只在 solution 中存在`);
    else if (solutionText === undefined) problems.push(`${file} 只在 starter 中存在`);
    else {
      const result = compareFile(labId, file, starterText, solutionText);
      problems.push(...result.problems);
      total += result.regions;
    }
  }
  if (problems.length === 0 && total === 0) problems.push(`没有找到练习区域（${REGION_START}）`);
  return problems.length === 0 ? { ok: true, regions: total } : { ok: false, problems };
}

function compareFile(
  labId: string,
  file: string,
  starterText: string,
  solutionText: string,
): { regions: number; problems: string[] } {
  const starterLines = splitLines(starterText);
  const solutionLines = splitLines(solutionText);
  const starterScan = findExerciseRegions(starterLines);
  const solutionScan = findExerciseRegions(solutionLines);
  const problems: string[] = [];
  if (!starterScan.ok) problems.push(`starter/${file} 的区域标记有误：${starterScan.problem}`);
  if (!solutionScan.ok) problems.push(`solution/${file} 的区域标记有误：${solutionScan.problem}`);
  if (!starterScan.ok || !solutionScan.ok) return { regions: 0, problems };
  if (starterScan.regions.length !== solutionScan.regions.length) {
    problems.push(
      `${file}：starter 有 ${starterScan.regions.length} 个练习区域，solution 有 ${solutionScan.regions.length} 个`,
    );
    return { regions: 0, problems };
  }
  const starterSegments = segmentsOutside(starterLines, starterScan.regions);
  const solutionSegments = segmentsOutside(solutionLines, solutionScan.regions);
  for (const [index, segment] of starterSegments.entries()) {
    const other = solutionSegments[index] ?? { firstLine: 0, lines: [] };
    const length = Math.max(segment.lines.length, other.lines.length);
    const offset = [...Array(length).keys()].find((at) => segment.lines[at] !== other.lines[at]);
    if (offset !== undefined) {
      problems.push(
        `${file} 在练习区域之外不同：starter 第 ${segment.firstLine + offset + 1} 行，solution 第 ${other.firstLine + offset + 1} 行`,
      );
    }
  }
  const todo = `// TODO(lab-${labId})`;
  for (const region of starterScan.regions) {
    const inside = starterLines.slice(region.start + 1, region.end);
    if (!inside.some((line) => line.includes(todo))) {
      problems.push(`starter/${file} 第 ${region.start + 1} 行的练习区域缺少 ${todo} 说明`);
    }
  }
  return { regions: starterScan.regions.length, problems };
}
