/**
 * The last run of each starter, kept for `pnpm lessons` and `pnpm lesson hint` under the
 * git-ignored `.lab-kit/lessons-cache/`: a starter whose lab, capstone and lab-kit files are
 * byte-for-byte what they were at that run is not run again.
 */
import { z } from "zod";
import {
  labCacheFile,
  labContentKey,
  readKeyed,
  sharedContentKey,
  writeKeyed,
} from "../content-key.ts";
import { type RunTarget, type TargetReport, targetReportSchema } from "../run/targets.ts";
import type { ResolvedLab } from "./lab-lookup.ts";

/** The run of one lab's starter, as `pnpm lessons` and `pnpm lesson hint` ask for it. */
export function starterTarget(lab: ResolvedLab): RunTarget {
  return { label: `${lab.id}:starter`, labDir: lab.dir, packageDir: lab.starterDir };
}

const CachedReportSchema = z.object({ key: z.string(), report: targetReportSchema });

/**
 * The reports of `targets` (one starter of each lab in `labs`, in the same order): from
 * the cache where the key still matches, from one call of `run` for the rest. A report
 * with a load error is never kept: it may come from a machine too busy to load a file in
 * time, and the learner's next look should try again.
 */
export async function starterReports(
  repoRoot: string,
  labs: readonly ResolvedLab[],
  targets: readonly RunTarget[],
  run: (targets: readonly RunTarget[]) => Promise<readonly TargetReport[]>,
): Promise<TargetReport[]> {
  const shared = await sharedContentKey(repoRoot, "lab-kit lessons v1");
  // Missing, unreadable, another shape or another key: the starter simply runs.
  const entries = await Promise.all(
    labs.map(async (lab) => {
      const key = await labContentKey(repoRoot, shared, lab.dir);
      const file = labCacheFile(repoRoot, "lessons-cache", lab);
      return { key, file, cached: (await readKeyed(file, CachedReportSchema, key))?.report };
    }),
  );
  const misses = targets.filter((_, index) => entries[index]?.cached === undefined);
  const fresh = misses.length === 0 ? [] : await run(misses);
  const byLabel = new Map(fresh.map((report) => [report.label, report]));
  await Promise.all(
    entries.map(async ({ key, file }, index) => {
      const report = byLabel.get(targets[index]?.label ?? "");
      if (report !== undefined && report.loadErrors.length === 0) {
        await writeKeyed(file, { key, report });
      }
    }),
  );
  return targets.map(
    (target, index) =>
      entries[index]?.cached ??
      byLabel.get(target.label) ?? { label: target.label, tests: [], loadErrors: [] },
  );
}
