import { listLabs } from "../labs.ts";
import type { TargetReport } from "../run/targets.ts";
import { EXIT_CODES } from "../tool-output.ts";
import { answerUsage, LESSONS_USAGE, parseLessonsArgs } from "./cli-args.ts";
import { inspectLab } from "./lab-lookup.ts";
import { type LearnerContext, repoRootOf } from "./learner-context.ts";
import { type LessonRow, renderLessonsJson, renderLessonsText } from "./lessons-report.ts";
import { summarizeProgress } from "./progress.ts";
import { starterReports, starterTarget } from "./report-cache.ts";
import { withStarterProgress } from "./starter-progress.ts";
import { checkTestsIntegrityOfLabs } from "./tampering.ts";
import { colorsFor } from "./terminal.ts";
import { foldersWithChanges } from "./working-tree.ts";

/**
 * Every lab with the learner's progress: one test run for the usable starters whose
 * files changed since their last run (all of them when `cache` is false).
 */
async function collectLessonRows(
  context: LearnerContext,
  repoRoot: string,
  cache: boolean,
): Promise<LessonRow[]> {
  const locations = await listLabs(repoRoot);
  const inspections = await Promise.all(
    locations.map((location) => inspectLab(repoRoot, location)),
  );
  const ready = inspections.flatMap((inspection) =>
    inspection.kind === "ready" ? [inspection.lab] : [],
  );
  // The test run dominates; the git comparisons run beside it.
  const targets = ready.map(starterTarget);
  const run = withStarterProgress(context, context.runTargets);
  const [reports, integrities, starters] = await Promise.all([
    ready.length === 0
      ? Promise.resolve([])
      : cache
        ? starterReports(repoRoot, ready, targets, run)
        : run(targets),
    checkTestsIntegrityOfLabs(repoRoot, ready),
    foldersWithChanges(
      repoRoot,
      ready.map((lab) => lab.starterDir),
    ),
  ]);
  const byLabel = new Map<string, TargetReport>(reports.map((report) => [report.label, report]));
  return inspections.map((inspection): LessonRow => {
    if (inspection.kind !== "ready") return inspection;
    const lab = inspection.lab;
    const index = ready.indexOf(lab);
    const label = starterTarget(lab).label;
    const report = byLabel.get(label) ?? { label, tests: [], loadErrors: [] };
    return {
      kind: "lesson",
      lab,
      // Without git nothing says the starter is untouched: count it as begun.
      progress: summarizeProgress(lab.manifest, report, starters?.get(lab.starterDir) === false),
      integrity: integrities[index] ?? { state: "unknown" },
    };
  });
}

/**
 * `pnpm lessons [--json]`: every lesson by week with the learner's progress and the next
 * lesson. Exits 2 on bad usage or when a lab cannot be used (named, with the reason).
 */
export async function runLessonsCommand(
  context: LearnerContext,
  argv: readonly string[],
): Promise<number> {
  const args = answerUsage(parseLessonsArgs(argv), LESSONS_USAGE, context);
  if ("exitCode" in args) return args.exitCode;
  const repoRoot = await repoRootOf(context);
  const rows = await collectLessonRows(context, repoRoot, args.value.cache);
  context.stdout.write(
    args.value.json
      ? renderLessonsJson(rows)
      : renderLessonsText(rows, colorsFor(context.stdout, context.env)),
  );
  // A lab that cannot be used (named, with the reason, in the table) exits 2.
  return rows.some((row) => row.kind !== "lesson") ? EXIT_CODES.usage : EXIT_CODES.ok;
}
