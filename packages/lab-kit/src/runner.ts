import { cp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { glob } from "tinyglobby";
import { InvalidRunTargetError } from "./errors.ts";
import {
  blockedTestMessage,
  IMPORT_HANG_MESSAGE,
  LAB_IMPORT_TIMEOUT_MS,
  LAB_TEST_TIMEOUT_MS,
} from "./lab-test-settings.js";
import { toPosixPath } from "./posix-path.ts";
import { classifyFailure, type SerializedTestError, shortMessage } from "./runner-classify.ts";
import { commonAncestor } from "./runner-paths.js";
import { discardPrestartedRunner } from "./runner-prestart.ts";
import { type RoundResult, runRound } from "./runner-process.ts";
import type { ChildPackageRun, ChildTarget, ModuleReport } from "./runner-protocol.ts";
import type {
  PackageTestFile,
  PackageTestRun,
  RunTarget,
  TargetReport,
  TestOutcome,
} from "./runner-types.ts";

/** Tuning knobs of {@link runLabTargets}; the defaults suit verify:lesson. */
export interface RunOptions {
  /**
   * Extra time, beyond the lab's per-test timeout, after which a test that has not
   * returned counts as blocking its worker (a synchronous endless loop). Default 3000 ms.
   */
  readonly hangGraceMs?: number;
  /**
   * A test file still importing after this long blocks its worker (an endless loop at
   * module level): it becomes a load error and the rest runs on. Default 10000 ms.
   */
  readonly importTimeoutMs?: number;
  /** Give up on a vitest process that shows no activity for this long. Default 30000 ms. */
  readonly idleMs?: number;
  /**
   * vitest workers per process. Default: the cores, at least 2, so a test that must run
   * into its timeout (a mutant's endless loop) overlaps the other targets' files instead
   * of queueing them (measured on 2 cores: 8 targets of lab 05 took 4.5 s with 1 worker,
   * 3.0-3.4 s with 2-4).
   */
  readonly maxWorkers?: number;
}

/** How many blocking tests or imports one target may have before the rest is given up on. */
const MAX_HUNG = 8;

/**
 * Runs each lab's shared tests against each target's sources and reports every test's
 * full name, state, modifier and, for a failure, its kind, plus imports the tests may not
 * make. Targets run as inline projects of one vitest process, a shuffled target too (its
 * target's files are shuffled by the test runner with its seed: runner-lab.js). The process
 * runs under a watchdog: a test or a file import that blocks its worker
 * is reported (`timeout`, or a load error), the process is killed, and the targets it had
 * not finished run again without that test or file.
 *
 * Throws {@link InvalidRunTargetError} only for caller mistakes (duplicate labels,
 * relative paths); everything the tests or the sources do is in the reports.
 */
export async function runLabTargets(
  targets: readonly RunTarget[],
  options: RunOptions = {},
): Promise<TargetReport[]> {
  return (await runLabAndPackageTests(targets, [], options)).reports;
}

/**
 * {@link runLabTargets}, and in the same vitest process the given test files of workspace
 * packages, each with its package's own vitest config (one vitest start instead of two).
 * A package file a killed round had not finished runs in the next round (see `runBatch`);
 * a file missing from the results never reported (it did not run).
 */
export async function runLabAndPackageTests(
  targets: readonly RunTarget[],
  packages: readonly PackageTestRun[],
  options: RunOptions = {},
): Promise<{ reports: TargetReport[]; packageFiles: PackageTestFile[] }> {
  const prepared = targets.map(prepareTarget);
  assertUniqueLabels(prepared);
  assertGroupsSound(prepared);
  const runs = await Promise.all(packages.map(preparePackageRun));
  // Nothing to run (every verdict came from the cache): no vitest process to start, and
  // one started ahead of time is ended.
  if (prepared.length === 0 && runs.length === 0) {
    discardPrestartedRunner();
    return { reports: [], packageFiles: [] };
  }
  await copyGroupedTests(prepared);
  const reports = new Map<string, TargetReport>();
  const batch = await runBatch(prepared, runs, options);
  for (const report of batch.reports) reports.set(report.label, report);
  return {
    reports: prepared.map(
      (target) => reports.get(target.label) ?? { label: target.label, tests: [], loadErrors: [] },
    ),
    packageFiles: batch.packageFiles,
  };
}

async function preparePackageRun(run: PackageTestRun): Promise<ChildPackageRun> {
  for (const file of [run.packageDir, ...run.files]) {
    if (!path.isAbsolute(file)) {
      throw new InvalidRunTargetError(`package run ${run.label}: paths must be absolute: ${file}`);
    }
  }
  const configs = await glob(["vitest.config.{ts,mts,js,mjs}"], {
    cwd: run.packageDir,
    absolute: true,
  });
  const configFile = configs.sort()[0];
  return {
    label: run.label,
    packageDir: run.packageDir,
    files: [...run.files],
    ...(configFile === undefined ? {} : { configFile }),
  };
}

/** Folder, inside a target's package, of the grouped targets' copies of the lab's tests. */
const RUNS_DIR = path.join(".lab-kit", "runs");

function prepareTarget(target: RunTarget, index: number): ChildTarget {
  for (const [field, value] of [
    ["labDir", target.labDir],
    ["packageDir", target.packageDir],
    ["srcDir", target.srcDir],
  ] as const) {
    if (value !== undefined && !path.isAbsolute(value)) {
      throw new InvalidRunTargetError(
        `target ${target.label}: ${field} must be absolute: ${value}`,
      );
    }
  }
  if (target.shuffleSeed !== undefined && !Number.isSafeInteger(target.shuffleSeed)) {
    throw new InvalidRunTargetError(
      `target ${target.label}: shuffleSeed must be an integer: ${target.shuffleSeed}`,
    );
  }
  if (target.workerGroup === "") {
    throw new InvalidRunTargetError(`target ${target.label}: workerGroup must not be empty`);
  }
  // A copy per target: its position keeps two labels that read alike as files apart.
  const copy = `${index}-${target.label.replace(/[^\w.-]/g, "_")}`;
  return {
    label: target.label,
    labDir: target.labDir,
    packageDir: target.packageDir,
    srcDir: target.srcDir ?? path.join(target.packageDir, "src"),
    testsDir:
      target.workerGroup === undefined
        ? path.join(target.labDir, "tests")
        : path.join(target.packageDir, RUNS_DIR, copy, "tests"),
    ...(target.workerGroup === undefined ? {} : { workerGroup: target.workerGroup }),
    testTimeoutMs: Math.min(target.testTimeoutMs ?? LAB_TEST_TIMEOUT_MS, LAB_TEST_TIMEOUT_MS),
    ...(target.shuffleSeed === undefined ? {} : { shuffleSeed: target.shuffleSeed }),
    skip: [],
    exclude: [],
  };
}

function assertUniqueLabels(targets: readonly ChildTarget[]): void {
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.label)) {
      throw new InvalidRunTargetError(`two targets share the label ${target.label}`);
    }
    seen.add(target.label);
  }
}

/**
 * A worker group's members must not share sources (a worker keeps the modules of one
 * member's file loaded for the next: the second member would run against the first's
 * already evaluated modules), and its project's name must not be a target's label.
 */
function assertGroupsSound(targets: readonly ChildTarget[]): void {
  const labels = new Set(targets.map((target) => target.label));
  const sources = new Map<string, string>();
  for (const target of targets) {
    if (target.workerGroup === undefined) continue;
    if (labels.has(`group:${target.workerGroup}`)) {
      throw new InvalidRunTargetError(
        `worker group ${target.workerGroup}: its project name group:${target.workerGroup} is also a target's label`,
      );
    }
    const key = JSON.stringify([target.workerGroup, path.resolve(target.srcDir)]);
    const other = sources.get(key);
    if (other !== undefined) {
      throw new InvalidRunTargetError(
        `targets ${other} and ${target.label} of worker group ${target.workerGroup} share srcDir ${target.srcDir}`,
      );
    }
    sources.set(key, target.label);
  }
}

/** Writes each grouped target's copy of its lab's tests, replacing an older one. */
async function copyGroupedTests(targets: readonly ChildTarget[]): Promise<void> {
  await Promise.all(
    targets
      .filter((target) => target.workerGroup !== undefined)
      .map(async (target) => {
        const copyRoot = path.dirname(target.testsDir);
        await rm(copyRoot, { recursive: true, force: true });
        await cp(path.join(target.labDir, "tests"), target.testsDir, {
          recursive: true,
          // A link stays a link to what the lab's own reaches (cp makes its target absolute).
          filter: (source) => path.basename(source) !== "node_modules",
        });
      }),
  );
}

/** What earlier rounds learned about one target. */
interface TargetHistory {
  hungTests: string[];
  hungImports: string[];
  modules: ModuleReport[];
  forbidden: { importer: string; specifier: string }[];
}

/** One round's work: targets, and package runs (only files not yet reported). */
interface Round {
  readonly targets: readonly ChildTarget[];
  readonly packages: readonly ChildPackageRun[];
}

/**
 * Runs groups of targets until every target has a report. A group whose process had to
 * be killed is run again: after a hung test or import, its unfinished targets without that
 * test or file (the files that finished are kept); after an idle or crashed process,
 * each unfinished target alone, so one broken target cannot take the others down with it.
 * Package files a killed process had not finished go with the next round: after a lab's
 * hang, each time; after an idle or crashed process, once.
 */
async function runBatch(
  initial: readonly ChildTarget[],
  packages: readonly ChildPackageRun[],
  options: RunOptions,
): Promise<{ reports: TargetReport[]; packageFiles: PackageTestFile[] }> {
  const history = new Map<string, TargetHistory>(
    initial.map((target) => [
      target.label,
      { hungTests: [], hungImports: [], modules: [], forbidden: [] },
    ]),
  );
  const finished: TargetReport[] = [];
  const packageFiles: PackageTestFile[] = [];
  let packagesRetried = false;
  const rounds: Round[] = [{ targets: [...initial], packages }];
  for (let round = rounds.shift(); round !== undefined; round = rounds.shift()) {
    const pending = round.targets;
    const result = await runRound(pending, round.packages, {
      root: commonAncestor([
        ...pending.flatMap((target) => [target.labDir, target.packageDir]),
        ...round.packages.map((run) => run.packageDir),
      ]),
      hangGraceMs: options.hangGraceMs ?? 3_000,
      importTimeoutMs: options.importTimeoutMs ?? LAB_IMPORT_TIMEOUT_MS,
      idleMs: options.idleMs ?? 30_000,
      maxWorkers: options.maxWorkers ?? Math.max(2, os.availableParallelism()),
    });
    for (const module of result.packageModules) {
      packageFiles.push({
        label: module.label,
        file: module.file,
        tests: module.tests,
        loadError: module.tests.length === 0 ? module.errors[0]?.message : undefined,
      });
    }
    const end = result.end;
    const retry: ChildTarget[] = [];
    for (const target of pending) {
      const past = history.get(target.label);
      if (past === undefined) continue;
      const done = result.modules.get(target.label) ?? [];
      past.modules.push(...done);
      past.forbidden.push(...(result.forbiddenImports.get(target.label) ?? []));
      if (end.kind === "hung") {
        past.hungTests.push(...(end.tests.get(target.label) ?? []));
        past.hungImports.push(...(end.imports.get(target.label) ?? []));
      }
      const complete = isComplete(result, target.label, past);
      const canRetry =
        (end.kind === "hung" && past.hungTests.length + past.hungImports.length <= MAX_HUNG) ||
        (end.kind !== "done" && end.kind !== "hung" && pending.length > 1);
      if (!complete && canRetry) {
        const finishedFiles = past.modules.map((module) => module.file);
        retry.push({
          ...target,
          skip: past.hungTests,
          exclude: [...new Set([...past.hungImports, ...finishedFiles])],
        });
        continue;
      }
      finished.push(buildReport(target, result, past, complete ? undefined : end));
    }
    const next: Round[] =
      end.kind === "hung" && retry.length > 0
        ? [{ targets: retry, packages: [] }]
        : end.kind !== "hung"
          ? retry.map((target) => ({ targets: [target], packages: [] }))
          : [];
    // Package files a lab's endless loop kept from finishing go on with the next round
    // (such rounds are bounded: MAX_HUNG); after any other end, once, in case it was theirs.
    const unfinished =
      end.kind === "done" || (end.kind !== "hung" && packagesRetried)
        ? []
        : unfinishedRuns(round.packages, packageFiles);
    if (unfinished.length > 0) {
      if (end.kind !== "hung") packagesRetried = true;
      const [first] = next;
      if (first === undefined) next.push({ targets: [], packages: unfinished });
      else next[0] = { ...first, packages: unfinished };
    }
    rounds.push(...next);
  }
  return { reports: finished, packageFiles };
}

/** The package runs' files that have no report yet. */
function unfinishedRuns(
  runs: readonly ChildPackageRun[],
  done: readonly PackageTestFile[],
): ChildPackageRun[] {
  const reported = new Set(done.map((entry) => entry.file));
  return runs
    .map((run) => ({ ...run, files: run.files.filter((file) => !reported.has(file)) }))
    .filter((run) => run.files.length > 0);
}

/** Every file planned for the target finished, here or in an earlier round, or hung. */
function isComplete(result: RoundResult, label: string, past: TargetHistory): boolean {
  const planned = result.planned.get(label);
  if (planned === undefined) return result.end.kind === "done";
  const done = new Set([...past.modules.map((module) => module.file), ...past.hungImports]);
  return planned.every((file) => done.has(file));
}

function buildReport(
  target: ChildTarget,
  result: RoundResult,
  past: TargetHistory,
  incomplete: RoundResult["end"] | undefined,
): TargetReport {
  const hungSet = new Set(past.hungTests);
  const tests: TestOutcome[] = [];
  const loadErrors: { file: string; message: string }[] = [];
  for (const module of past.modules) {
    const file = relativeFile(target.labDir, module.file);
    if (module.tests.length === 0 && module.errors.length > 0) {
      loadErrors.push({ file, message: loadMessage(module.errors, target.labDir) });
      continue;
    }
    for (const test of module.tests) tests.push(toOutcome(test, file, module, hungSet, target));
  }
  for (const file of past.hungImports) {
    loadErrors.push({ file: relativeFile(target.labDir, file), message: IMPORT_HANG_MESSAGE });
  }
  if (incomplete !== undefined) {
    const done = new Set([...past.modules.map((module) => module.file), ...past.hungImports]);
    const files = (result.planned.get(target.label) ?? []).filter((file) => !done.has(file));
    const why =
      incomplete.kind === "crashed"
        ? incomplete.message
        : "测试文件在限定时间内没有跑完（加载时卡死或重试次数用尽）";
    if (files.length === 0) loadErrors.push({ file: "tests", message: why });
    for (const file of files)
      loadErrors.push({ file: relativeFile(target.labDir, file), message: why });
  }
  const forbiddenImports = past.forbidden.map((entry) => ({
    file: relativeFile(target.labDir, entry.importer),
    specifier: entry.specifier,
  }));
  return { label: target.label, tests, loadErrors, forbiddenImports };
}

function toOutcome(
  test: ModuleReport["tests"][number],
  file: string,
  module: ModuleReport,
  hung: ReadonlySet<string>,
  target: ChildTarget,
): TestOutcome {
  if (hung.has(test.name)) {
    return {
      name: test.name,
      file,
      state: "failed",
      failure: { kind: "timeout", message: blockedTestMessage(target.testTimeoutMs) },
    };
  }
  const modifier = test.modifier === undefined ? {} : { modifier: test.modifier };
  if (test.state === "failed") {
    return {
      name: test.name,
      file,
      state: "failed",
      failure: classifyFailure(test.errors, target.labDir),
      ...modifier,
    };
  }
  // A failing beforeAll/afterAll leaves tests without their own error: charge it to them.
  if (test.state === "skipped" && module.errors.length > 0 && test.modifier === undefined) {
    return {
      name: test.name,
      file,
      state: "failed",
      failure: classifyFailure(module.errors, target.labDir),
    };
  }
  return { name: test.name, file, state: test.state, ...modifier };
}
/**
 * The useful lines of a load error: no colors or box drawing, no "Transform failed" preamble,
 * and source positions shown relative to the lab folder (`starter/src/index.ts:6:16`).
 */
function loadMessage(errors: readonly SerializedTestError[], labDir: string): string {
  const first = errors[0];
  if (first === undefined) return "测试文件无法加载";
  const lines = stripVTControlCharacters(first.message)
    .split("\n")
    .map((line) => line.replace(/[\u2500-\u257f]/g, "").trim())
    .filter((line) => line !== "" && !/^Transform failed with \d+ errors?:?$/.test(line))
    .map((line) =>
      line.replace(/(\S+\.[cm]?[jt]sx?)(:\d+:\d+)/g, (_all, file: string, position: string) => {
        const relative = path.relative(labDir, path.resolve(file));
        return `${relative.startsWith("..") ? file : toPosixPath(relative)}${position}`;
      }),
    )
    .map((line) => line.replace(/^\[\s*(.*?)\s*\]$/, "$1"))
    .slice(0, 3);
  return shortMessage({ ...first, message: lines.join(" · ") });
}

function relativeFile(labDir: string, file: string): string {
  const relative = path.relative(labDir, file);
  return toPosixPath(relative.startsWith("..") ? file : relative);
}
