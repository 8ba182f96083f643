import { access, readdir } from "node:fs/promises";
import path from "node:path";
import type { LabLocation } from "../labs.ts";
import { checkTestsIntegrity, describeIntegrity } from "../learner/tampering.ts";
import { type LessonManifest, loadManifest } from "../manifest.ts";
import { toPosixPath } from "../posix-path.ts";
import { type RunOptions, runLabTargets } from "../runner.ts";
import type { RunTarget, TargetReport } from "../runner-types.ts";
import { type CapstoneFileResult, runCapstoneTests } from "./capstone-tests.ts";
import { type CheckLine, failed, type LabVerdict, passed } from "./check-line.ts";
import {
  checkCapstone,
  checkGate,
  checkReferences,
  checkSolution,
  checkStarter,
  checkTypes,
} from "./evaluate.ts";
import {
  type MutantResult,
  type PristineStarter,
  prepareMutant,
  preparePristineStarter,
  readSourceTree,
} from "./lab-copies.ts";
import { learnerReport } from "./learner-report.ts";
import { checkExerciseRegions } from "./region-check.ts";
import { type TypecheckResult, typecheckPackage, typecheckPristineStarter } from "./typecheck.ts";

/**
 * Per-test timeout of a mutation gate's run. Lab tests take milliseconds on the solution,
 * so a mutant still running after this long is broken (usually an endless loop); waiting
 * the lab's full timeout would only make every verify slower.
 */
export const GATE_TEST_TIMEOUT_MS = 500;

export interface VerifyOptions {
  /** Seed of the shuffled solution run; random when absent (and shown in the report). */
  readonly seed?: number;
  readonly run?: RunOptions;
}

/** A lab ready to run: manifest valid, copies written, targets planned. */
interface PlannedLab {
  readonly lab: LabLocation;
  readonly manifest: LessonManifest;
  readonly early: CheckLine[];
  readonly pristine: PristineStarter;
  readonly mutants: ReadonlyMap<string, MutantResult>;
  readonly learnerEdited: boolean;
  /** Chinese notice when the lab's tests/ differ from HEAD: the learner's count is then moot. */
  readonly testsNotice: string | undefined;
  readonly targets: RunTarget[];
}

/**
 * Verifies labs: manifest, solution (in order and shuffled), pristine starter, exercise
 * regions, types, mutation gates, capstone tests and references; then the learner's own
 * starter, reported apart. All labs' test targets share one runner call, and the type and
 * capstone checks run beside it.
 */
export async function verifyLessons(
  repoRoot: string,
  labs: readonly LabLocation[],
  options: VerifyOptions = {},
): Promise<LabVerdict[]> {
  const seed = options.seed ?? Math.floor(Math.random() * 100_000);
  const planned = await Promise.all(labs.map((lab) => planLab(lab, seed)));
  const ready = planned.filter((entry): entry is PlannedLab => !("verdict" in entry));
  const [reports, types, capstone] = await Promise.all([
    runLabTargets(
      ready.flatMap((entry) => entry.targets),
      options.run,
    ),
    typecheckAll(ready),
    runCapstoneTests(
      repoRoot,
      ready.map((entry) => ({
        packageName: entry.manifest.capstone.package,
        files: entry.manifest.capstone.tests,
      })),
    ),
  ]);
  const byLabel = new Map(reports.map((report) => [report.label, report]));
  return planned.map((entry) =>
    "verdict" in entry ? entry.verdict : evaluateLab(entry, byLabel, types, capstone, seed),
  );
}

async function planLab(
  lab: LabLocation,
  seed: number,
): Promise<PlannedLab | { verdict: LabVerdict }> {
  const stop = (checks: CheckLine[], title?: string): { verdict: LabVerdict } => ({
    verdict: { id: lab.id, slug: lab.slug, title, checks, learner: [] },
  });
  const loaded = await loadManifest(lab.dir);
  if (!loaded.ok) {
    const file = path.relative(path.dirname(path.dirname(lab.dir)), loaded.file);
    return stop([failed(`清单无效：${file}：${loaded.problems.join("；")}`)]);
  }
  const manifest = loaded.manifest;
  const early: CheckLine[] = [];
  if (manifest.id !== lab.id || manifest.slug !== lab.slug) {
    return stop(
      [
        failed(
          `清单无效：id/slug 是 ${manifest.id}-${manifest.slug}，而文件夹是 ${lab.id}-${lab.slug}`,
        ),
      ],
      manifest.title,
    );
  }
  early.push(passed("清单有效（lesson.json）"));
  const missing = await missingParts(lab.dir);
  if (missing.length > 0) {
    return stop([...early, failed(`实验不完整，缺少：${missing.join("、")}`)], manifest.title);
  }
  const starterDir = path.join(lab.dir, "starter");
  const solutionDir = path.join(lab.dir, "solution");
  const [pristine, solutionFiles, workingStarter] = await Promise.all([
    preparePristineStarter(starterDir),
    readSourceTree(solutionDir),
    readSourceTree(starterDir),
  ]);
  const regions = checkExerciseRegions(lab.id, pristine.files, solutionFiles);
  early.push(
    regions.ok
      ? passed(`starter 与 solution 只在 ${regions.regions} 个练习区域内不同`)
      : failed(`练习区域：${regions.problem}`),
  );
  const mutants = new Map<string, MutantResult>();
  for (const mutation of manifest.mutations) {
    mutants.set(mutation.name, await prepareMutant(solutionDir, solutionFiles, mutation));
  }
  const learnerEdited = !sameFiles(workingStarter, pristine.files);
  const testsNotice = describeIntegrity(
    {
      name: toPosixPath(path.relative(path.dirname(path.dirname(lab.dir)), lab.dir)),
    },
    await checkTestsIntegrity({ testsDir: path.join(lab.dir, "tests") }),
  );
  const base = { labDir: lab.dir };
  const targets: RunTarget[] = [
    { ...base, label: `${lab.id}:solution`, packageDir: solutionDir },
    { ...base, label: `${lab.id}:solution-shuffled`, packageDir: solutionDir, shuffleSeed: seed },
    { ...base, label: `${lab.id}:starter`, packageDir: starterDir, srcDir: pristine.srcDir },
  ];
  if (learnerEdited) targets.push({ ...base, label: `${lab.id}:learner`, packageDir: starterDir });
  for (const [name, mutant] of mutants) {
    if (mutant.ok) {
      targets.push({
        ...base,
        label: `${lab.id}:gate:${name}`,
        packageDir: solutionDir,
        srcDir: mutant.srcDir,
        testTimeoutMs: GATE_TEST_TIMEOUT_MS,
      });
    }
  }
  return { lab, manifest, early, pristine, mutants, learnerEdited, testsNotice, targets };
}

async function typecheckAll(
  labs: readonly PlannedLab[],
): Promise<Map<string, { starter: TypecheckResult; solution: TypecheckResult }>> {
  const results = new Map<string, { starter: TypecheckResult; solution: TypecheckResult }>();
  for (const entry of labs) {
    const [starter, solution] = await Promise.all([
      typecheckPristineStarter(entry.lab.dir, entry.pristine.srcDir),
      typecheckPackage(entry.lab.dir, path.join(entry.lab.dir, "solution")),
    ]);
    results.set(entry.lab.id, { starter, solution });
  }
  return results;
}

function evaluateLab(
  entry: PlannedLab,
  reports: ReadonlyMap<string, TargetReport>,
  types: ReadonlyMap<string, { starter: TypecheckResult; solution: TypecheckResult }>,
  capstone: ReadonlyMap<string, CapstoneFileResult>,
  seed: number,
): LabVerdict {
  const { lab, manifest } = entry;
  const report = (suffix: string): TargetReport =>
    reports.get(`${lab.id}:${suffix}`) ?? { label: suffix, tests: [], loadErrors: [] };
  const solution = report("solution");
  const knownTests = new Set(solution.tests.map((test) => test.name));
  const checks: CheckLine[] = [entry.early[0] ?? passed("清单有效（lesson.json）")];
  checks.push(checkSolution(solution));
  checks.push(checkSolution(report("solution-shuffled"), seed));
  checks.push(checkStarter(manifest, report("starter"), entry.pristine.committed));
  checks.push(...entry.early.slice(1));
  const typeResult = types.get(lab.id);
  if (typeResult !== undefined) checks.push(checkTypes(typeResult.starter, typeResult.solution));
  for (const mutation of manifest.mutations) {
    const mutant = entry.mutants.get(mutation.name);
    if (mutant !== undefined && !mutant.ok) {
      checks.push(failed(`变异门 ${mutation.name}（${mutation.description}）：${mutant.problem}`));
    } else checks.push(checkGate(mutation, report(`gate:${mutation.name}`), knownTests));
  }
  checks.push(checkCapstone(manifest, capstone));
  checks.push(checkReferences(manifest, knownTests, capstone));
  const learner = learnerReport(
    manifest,
    entry.learnerEdited ? report("learner") : report("starter"),
    entry.learnerEdited,
  );
  if (entry.testsNotice !== undefined) learner.push(...entry.testsNotice.split("\n"));
  return { id: lab.id, slug: lab.slug, title: manifest.title, checks, learner };
}

async function missingParts(labDir: string): Promise<string[]> {
  const missing: string[] = [];
  for (const part of ["starter/src/index.ts", "solution/src/index.ts"]) {
    try {
      await access(path.join(labDir, part));
    } catch {
      missing.push(part);
    }
  }
  let tests: string[] = [];
  try {
    tests = (await readdir(path.join(labDir, "tests"), { recursive: true })).filter((file) =>
      file.endsWith(".test.ts"),
    );
  } catch {
    tests = [];
  }
  if (tests.length === 0) missing.push("tests/*.test.ts");
  return missing;
}

function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [file, content] of a) if (b.get(file) !== content) return false;
  return true;
}
