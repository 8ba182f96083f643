import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import pc from "picocolors";
import { labCacheFile, readKeyed, writeKeyed } from "../content-key.ts";
import { readCommittedTrees } from "../git.ts";
import type { LabLocation } from "../labs.ts";
import {
  checkTestsIntegrityOfLabs,
  describeIntegrity,
  type TestsIntegrity,
} from "../learner/tampering.ts";
import { type LessonManifest, loadManifest } from "../manifest.ts";
import { toPosixPath } from "../posix-path.ts";
import { runLabAndPackageTests } from "../run/runner.ts";
import type { RunTarget, TargetReport } from "../run/targets.ts";
import { checkAnswerLeaks } from "./answer-leaks.ts";
import { capstoneLinkProblems, workspacePackages } from "./capstone-link.ts";
import { type CapstoneFileResult, planCapstoneTests } from "./capstone-tests.ts";
import {
  type CheckLine,
  failed,
  formatVerdictIn,
  isSound,
  type LabVerdict,
  passed,
} from "./check-line.ts";
import {
  checkCapstone,
  checkGate,
  checkReferences,
  checkSolution,
  checkStarter,
  checkTestRules,
  checkTypes,
  type RuleTarget,
} from "./evaluate.ts";
import { checkHints } from "./hint-rules.ts";
import {
  applyMutation,
  type MutantResult,
  type PristineStarter,
  readPristineStarter,
  readSourceTree,
  writeSourceCopy,
} from "./lab-copies.ts";
import { learnerReport } from "./learner-report.ts";
import { type CommandRun, runReadmeCommands } from "./readme-commands.ts";
import { checkReadmeOutputs, countMarkedBlocks, readmeOutputsText } from "./readme-outputs.ts";
import { checkReadmeRubric } from "./readme-rubric.ts";
import { checkReadmeSymptoms } from "./readme-symptoms.ts";
import { checkExerciseRegions } from "./region-check.ts";
import { scanTestFolder, type TestFolderScan } from "./test-files.ts";
import {
  type TypecheckResult,
  typecheckPristineStarter,
  typecheckSolutionAndMutants,
} from "./typecheck.ts";
import { type CachedVerdict, cachedVerdictSchema, sharedKey, verdictKey } from "./verdict-cache.ts";

export interface VerifyOptions {
  /** Seed of the shuffled solution run; random when absent (and shown in the report). */
  readonly seed?: number;
  /**
   * Reuse the verdict of a lab that was sound last time, when nothing it depends on has
   * changed since (see `verdict-cache.ts`); store new sound verdicts. Off by default.
   */
  readonly cache?: boolean;
}

/** The runner labels of one lab's targets, by role: no label is rebuilt or parsed. */
interface LabTargets {
  readonly solution: string;
  readonly shuffled: string;
  readonly starter: string;
  readonly learner: string | undefined;
  /** Gate label by mutation name (only mutations that could be applied). */
  readonly gates: ReadonlyMap<string, string>;
}

/** A lab ready to run: manifest valid, its copies made (in memory), targets planned. */
interface PlannedLab {
  readonly lab: LabLocation;
  readonly manifest: LessonManifest;
  readonly regions: CheckLine;
  /** The lab's README.md, when it has one. */
  readonly readme: string | undefined;
  readonly testFolder: TestFolderScan;
  readonly pristine: PristineStarter;
  /** The solution's sources, by path under `src/`. */
  readonly solutionFiles: ReadonlyMap<string, string>;
  readonly mutants: ReadonlyMap<string, MutantResult>;
  /** Chinese notice when the lab's tests/ differ from HEAD: it leads the verdict. */
  readonly testsNotice: string | undefined;
  readonly labels: LabTargets;
  readonly targets: RunTarget[];
}

/** What the type checks said about one lab. */
interface LabTypes {
  readonly starter: TypecheckResult;
  readonly solution: TypecheckResult;
  readonly mutants: ReadonlyMap<string, TypecheckResult>;
}

/**
 * Verifies labs: manifest, lab test rules, solution (in order and shuffled), pristine
 * starter, exercise regions, types, mutation gates, capstone tests and references; then
 * the learner's own starter, reported apart. All labs' test targets share one runner call,
 * and the type and capstone checks run beside it.
 */
export async function verifyLessons(
  repoRoot: string,
  labs: readonly LabLocation[],
  options: VerifyOptions = {},
): Promise<LabVerdict[]> {
  const seed = options.seed ?? Math.floor(Math.random() * 100_000);
  const planned = await planLabs(repoRoot, labs, seed);
  const ready = planned.filter((entry): entry is PlannedLab => !("verdict" in entry));
  const cached =
    options.cache === true
      ? await readCachedVerdicts(repoRoot, ready, options.seed)
      : new Map<PlannedLab, CacheEntry>();
  // A lab whose verdict is cached runs only the learner's own edited starter, if any, and
  // needs no copies.
  const fresh = ready.filter((entry) => cached.get(entry)?.hit === undefined);
  await Promise.all(fresh.map(writeCopies));
  const targets = ready.flatMap((entry) =>
    cached.get(entry)?.hit === undefined
      ? entry.targets
      : entry.targets.filter((target) => target.label === entry.labels.learner),
  );
  const packages = await workspacePackages(repoRoot);
  // The capstone's test files run in the lab targets' vitest process, with their package's
  // own config: one vitest start, not two.
  const capstonePlan = planCapstoneTests(
    repoRoot,
    packages,
    fresh.map((entry) => ({
      packageName: entry.manifest.capstone.package,
      files: entry.manifest.capstone.tests,
    })),
  );
  const [firstRun, types, links, commands] = await Promise.all([
    runLabAndPackageTests(targets, capstonePlan.runs),
    typecheckAll(fresh),
    Promise.all(
      ready.map((entry) => capstoneLinkProblems(repoRoot, entry.manifest.capstone, packages)),
    ),
    runAllReadmeCommands(repoRoot, fresh),
  ]);
  const reports = firstRun.reports;
  const capstone = capstonePlan.finish(firstRun.packageFiles);
  const linkProblems = new Map(ready.map((entry, index) => [entry.lab.dir, links[index] ?? []]));
  const byLabel = new Map(reports.map((report) => [report.label, report]));
  const verdicts: LabVerdict[] = [];
  for (const entry of planned) {
    if ("verdict" in entry) {
      verdicts.push(entry.verdict);
      continue;
    }
    const cache = cached.get(entry);
    if (cache?.hit !== undefined) {
      verdicts.push(fromCache(entry, cache.hit, byLabel));
      continue;
    }
    const verdict = evaluateLab(
      entry,
      byLabel,
      types,
      capstone,
      linkProblems.get(entry.lab.dir) ?? [],
      seed,
      commands.get(entry.lab.dir) ?? new Map(),
    );
    verdicts.push(verdict);
    if (cache !== undefined && isSound(verdict)) {
      const starter = byLabel.get(entry.labels.starter);
      await writeKeyed(labCacheFile(repoRoot, "verify-cache", entry.lab), {
        key: cache.key,
        ...(verdict.title === undefined ? {} : { title: verdict.title }),
        checks: verdict.checks.map((check) => ({ ok: true as const, text: check.text })),
        untouchedLearner:
          starter === undefined ? [] : learnerReport(entry.manifest, starter, false),
      });
    }
  }
  return verdicts;
}

/**
 * Every lab planned, or its verdict when it cannot be (an invalid manifest, a missing part,
 * a lesson number two folders share). HEAD's starters and tests of every lab are read by
 * four git processes in all.
 */
async function planLabs(
  repoRoot: string,
  labs: readonly LabLocation[],
  seed: number,
): Promise<(PlannedLab | { verdict: LabVerdict })[]> {
  const [starters, integrities] = await Promise.all([
    readCommittedTrees(
      repoRoot,
      labs.map((lab) => path.join(lab.dir, "starter", "src")),
    ),
    checkTestsIntegrityOfLabs(
      repoRoot,
      labs.map((lab) => ({ testsDir: path.join(lab.dir, "tests") })),
    ),
  ]);
  return Promise.all(
    labs.map((lab, index) => {
      const twins = labs.filter((other) => other.id === lab.id);
      return twins.length > 1
        ? duplicateNumber(repoRoot, lab, twins)
        : planLab(repoRoot, lab, seed, {
            starter: starters.get(path.join(lab.dir, "starter", "src")),
            integrity: integrities[index] ?? { state: "unknown" },
          });
    }),
  );
}

/** A lab's verdict-cache key, and the sound verdict stored under it if there is one. */
interface CacheEntry {
  readonly key: string;
  readonly hit: CachedVerdict | undefined;
}

/** The cache entry of every planned lab, read one lab after another. */
async function readCachedVerdicts(
  repoRoot: string,
  ready: readonly PlannedLab[],
  seed: number | undefined,
): Promise<Map<PlannedLab, CacheEntry>> {
  const cached = new Map<PlannedLab, CacheEntry>();
  const shared = await sharedKey(repoRoot, seed);
  for (const entry of ready) {
    const key = await verdictKey(repoRoot, shared, entry.lab, entry.pristine.files);
    const file = labCacheFile(repoRoot, "verify-cache", entry.lab);
    cached.set(entry, { key, hit: await readKeyed(file, cachedVerdictSchema, key) });
  }
  return cached;
}

/** A sound verdict from the cache, with today's notice and learner report. */
function fromCache(
  entry: PlannedLab,
  hit: CachedVerdict,
  reports: ReadonlyMap<string, TargetReport>,
): LabVerdict {
  const learnerLabel = entry.labels.learner;
  const learner =
    learnerLabel === undefined
      ? hit.untouchedLearner
      : learnerReport(
          entry.manifest,
          reports.get(learnerLabel) ?? { label: learnerLabel, tests: [], loadErrors: [] },
          true,
        );
  return {
    id: entry.lab.id,
    slug: entry.lab.slug,
    title: hit.title,
    notice: noticeLines(entry),
    checks: hit.checks,
    learner,
    cached: true,
  };
}

function noticeLines(entry: PlannedLab): string[] {
  return entry.testsNotice === undefined
    ? []
    : [
        ...entry.testsNotice.split("\n"),
        "  以下检查用的是改动后的测试：若失败，先恢复测试再看结论。",
      ];
}

/**
 * Two folders with one lesson number: which one `verify:lesson NN` and the learner tools
 * mean is ambiguous, so neither is verified.
 */
function duplicateNumber(
  repoRoot: string,
  lab: LabLocation,
  twins: readonly LabLocation[],
): { verdict: LabVerdict } {
  const folders = twins.map((twin) => path.relative(repoRoot, twin.dir).split(path.sep).join("/"));
  return {
    verdict: {
      id: lab.id,
      slug: lab.slug,
      title: undefined,
      notice: [],
      checks: [
        failed(
          `清单无效：第 ${lab.id} 课有 ${twins.length} 个文件夹（${folders.join("、")}），课号必须唯一`,
        ),
      ],
      learner: [],
    },
  };
}

/** Writes the copies a lab's targets run from: the pristine starter and the mutants. */
async function writeCopies(entry: PlannedLab): Promise<void> {
  await Promise.all([
    writeSourceCopy(entry.pristine.srcDir, entry.pristine.files),
    ...[...entry.mutants.values()].map((mutant) =>
      mutant.ok ? writeSourceCopy(mutant.srcDir, mutant.files) : undefined,
    ),
  ]);
}

async function planLab(
  repoRoot: string,
  lab: LabLocation,
  seed: number,
  committed: {
    readonly starter: ReadonlyMap<string, Buffer> | undefined;
    readonly integrity: TestsIntegrity;
  },
): Promise<PlannedLab | { verdict: LabVerdict }> {
  const stop = (checks: CheckLine[], title?: string): { verdict: LabVerdict } => ({
    verdict: { id: lab.id, slug: lab.slug, title, notice: [], checks, learner: [] },
  });
  const loaded = await loadManifest(lab.dir);
  if (!loaded.ok) {
    const file = toPosixPath(path.relative(repoRoot, loaded.file));
    return stop([failed(`清单无效：${file}：${loaded.problems.join("；")}`)]);
  }
  const manifest = loaded.manifest;
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
  const testFolder = await scanTestFolder(lab.dir);
  const missing = missingParts(lab.dir, testFolder);
  if (missing.length > 0) {
    return stop(
      [passed("清单有效（lesson.json）"), failed(`实验不完整，缺少：${missing.join("、")}`)],
      manifest.title,
    );
  }
  const starterDir = path.join(lab.dir, "starter");
  const solutionDir = path.join(lab.dir, "solution");
  const [pristine, solutionFiles, workingStarter] = await Promise.all([
    readPristineStarter(starterDir, committed.starter),
    readSourceTree(solutionDir),
    readSourceTree(starterDir),
  ]);
  const regionResult = checkExerciseRegions(lab.id, pristine.files, solutionFiles);
  const regions = regionResult.ok
    ? passed(`starter 与 solution 只在 ${regionResult.regions} 个练习区域内不同`)
    : failed(`练习区域：${regionResult.problems.join("；")}`);
  const mutants = new Map<string, MutantResult>(
    manifest.mutations.map((mutation) => [
      mutation.name,
      applyMutation(solutionDir, solutionFiles, mutation),
    ]),
  );
  const learnerEdited = !isDeepStrictEqual(workingStarter, pristine.files);
  const labName = toPosixPath(path.relative(repoRoot, lab.dir));
  const testsNotice = describeIntegrity({ name: labName }, committed.integrity);
  const base = { labDir: lab.dir };
  const labels: LabTargets = {
    solution: `${lab.id}:solution`,
    shuffled: `${lab.id}:solution-shuffled`,
    starter: `${lab.id}:starter`,
    learner: learnerEdited ? `${lab.id}:learner` : undefined,
    gates: new Map(
      [...mutants]
        .filter(([, mutant]) => mutant.ok)
        .map(([name]) => [name, `${lab.id}:gate:${name}`]),
    ),
  };
  // Every target runs in a project of its own, each test file with modules of its own (vitest
  // isolates files): the committed starter from its pristine copy, each gate from its mutant.
  const targets: RunTarget[] = [
    { ...base, label: labels.solution, packageDir: solutionDir },
    { ...base, label: labels.shuffled, packageDir: solutionDir, shuffleSeed: seed },
    { ...base, label: labels.starter, packageDir: starterDir, srcDir: pristine.srcDir },
  ];
  if (labels.learner !== undefined) {
    targets.push({ ...base, label: labels.learner, packageDir: starterDir });
  }
  for (const [name, label] of labels.gates) {
    const mutant = mutants.get(name);
    if (mutant?.ok) {
      targets.push({ ...base, label, packageDir: solutionDir, srcDir: mutant.srcDir });
    }
  }
  const readme = await readFile(path.join(lab.dir, "README.md"), "utf8").catch(() => undefined);
  return {
    lab,
    manifest,
    regions,
    readme,
    testFolder,
    pristine,
    solutionFiles,
    mutants,
    testsNotice,
    labels,
    targets,
  };
}

/**
 * The README commands of every lab, one lab after another: they start processes of their
 * own beside the test run, which already keeps the cores busy.
 */
async function runAllReadmeCommands(
  repoRoot: string,
  labs: readonly PlannedLab[],
): Promise<Map<string, Map<number, CommandRun>>> {
  const runs = new Map<string, Map<number, CommandRun>>();
  for (const entry of labs) {
    const { lab, pristine, readme } = entry;
    runs.set(
      lab.dir,
      await runReadmeCommands({
        repoRoot,
        labDir: lab.dir,
        pristineSrcDir: pristine.srcDir,
        readme,
      }),
    );
  }
  return runs;
}

/** Labs typechecked at once: each lab's two native `tsc` runs use several threads already. */
const TYPECHECK_LABS_AT_ONCE = 2;

async function typecheckAll(labs: readonly PlannedLab[]): Promise<Map<string, LabTypes>> {
  const results = new Map<string, LabTypes>();
  const queue = [...labs];
  const worker = async (): Promise<void> => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
      const mutantDirs = new Map<string, string>();
      for (const [name, mutant] of entry.mutants) {
        if (mutant.ok) mutantDirs.set(name, mutant.srcDir);
      }
      const [starter, checked] = await Promise.all([
        typecheckPristineStarter(entry.lab.dir, entry.pristine.srcDir),
        typecheckSolutionAndMutants(entry.lab.dir, mutantDirs),
      ]);
      results.set(entry.lab.id, { starter, ...checked });
    }
  };
  await Promise.all(Array.from({ length: TYPECHECK_LABS_AT_ONCE }, worker));
  return results;
}

function evaluateLab(
  entry: PlannedLab,
  reports: ReadonlyMap<string, TargetReport>,
  types: ReadonlyMap<string, LabTypes>,
  capstone: ReadonlyMap<string, CapstoneFileResult>,
  capstoneLinks: readonly string[],
  seed: number,
  commands: ReadonlyMap<number, CommandRun>,
): LabVerdict {
  const { lab, manifest, labels } = entry;
  const report = (label: string): TargetReport =>
    reports.get(label) ?? { label, tests: [], loadErrors: [] };
  const solution = report(labels.solution);
  const starter = report(labels.starter);
  const knownTests = new Set(solution.tests.map((test) => test.name));
  const ruleTargets: RuleTarget[] = [
    { name: "解答", report: solution },
    { name: "解答乱序", report: report(labels.shuffled) },
    { name: "初始 starter", report: starter },
    ...[...labels.gates].map(([name, label]) => ({
      name: `变异门 ${name}`,
      report: report(label),
    })),
  ];
  const checks: CheckLine[] = [
    passed("清单有效（lesson.json）"),
    checkTestRules(entry.testFolder.problems, solution, ruleTargets),
    checkSolution(solution),
    checkSolution(report(labels.shuffled), seed),
    checkStarter(manifest, starter, entry.pristine.committed),
    entry.regions,
  ];
  const typeResult = types.get(lab.id);
  if (typeResult !== undefined) checks.push(checkTypes(typeResult.starter, typeResult.solution));
  for (const mutation of manifest.mutations) {
    const mutant = entry.mutants.get(mutation.name);
    const label = labels.gates.get(mutation.name);
    if (mutant !== undefined && !mutant.ok) {
      checks.push(failed(`变异门 ${mutation.name}（${mutation.description}）：${mutant.problem}`));
    } else if (label !== undefined) {
      checks.push(
        checkGate(mutation, report(label), knownTests, typeResult?.mutants.get(mutation.name)),
      );
    }
  }
  checks.push(checkCapstone(manifest, capstone, capstoneLinks));
  checks.push(checkReferences(manifest, knownTests, capstone));
  const capstoneTests = new Set(
    manifest.capstone.tests.flatMap((file) => capstone.get(file)?.testNames ?? []),
  );
  checks.push(checkReadmeRubric(entry.readme, manifest, knownTests, capstoneTests));
  checks.push(checkAnswerLeaks(entry.readme, entry.pristine.files, entry.solutionFiles));
  checks.push(checkHints(manifest, entry.solutionFiles));
  const gateReports = new Map([...labels.gates].map(([name, label]) => [name, report(label)]));
  checks.push(checkReadmeSymptoms(entry.readme, manifest, gateReports));
  // The README's verify block is this very report, with this check passing, as printed
  // for an untouched starter: the expected text is formatted from the checks made so far.
  const asPrinted: LabVerdict = {
    id: lab.id,
    slug: lab.slug,
    title: manifest.title,
    notice: [],
    checks: [...checks, passed(readmeOutputsText(countMarkedBlocks(entry.readme)))],
    learner: learnerReport(manifest, starter, false),
  };
  checks.push(
    checkReadmeOutputs(entry.readme, {
      verifyLines: formatVerdictIn(asPrinted, pc.createColors(false)).split("\n"),
      starter,
      solution,
      commands,
    }),
  );
  const learner = learnerReport(
    manifest,
    labels.learner === undefined ? starter : report(labels.learner),
    labels.learner !== undefined,
  );
  const notice = noticeLines(entry);
  return { id: lab.id, slug: lab.slug, title: manifest.title, notice, checks, learner };
}

function missingParts(labDir: string, tests: TestFolderScan): string[] {
  const missing = ["starter/src/index.ts", "solution/src/index.ts"].filter(
    (part) => !existsSync(path.join(labDir, part)),
  );
  if (tests.testFiles.length === 0) missing.push("tests/*.test.ts");
  return missing;
}
