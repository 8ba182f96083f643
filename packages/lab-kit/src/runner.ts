import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { InvalidRunTargetError } from "./errors.ts";
import { LAB_TEST_TIMEOUT_MS } from "./lab-test-settings.js";
import { toPosixPath } from "./posix-path.ts";
import { classifyFailure, type SerializedTestError, shortMessage } from "./runner-classify.ts";
import {
  type ChildTarget,
  type ModuleReport,
  type RoundResult,
  runRound,
} from "./runner-process.ts";
import type { RunTarget, TargetReport, TestOutcome } from "./runner-types.ts";

/** Tuning knobs of {@link runLabTargets}; the defaults suit verify:lesson. */
export interface RunOptions {
  /**
   * Extra time, beyond the lab's per-test timeout, after which a test that has not
   * returned counts as blocking its worker (a synchronous endless loop). Default 3000 ms.
   */
  readonly hangGraceMs?: number;
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

/** How many blocking tests one target may have before the rest of it is given up on. */
const MAX_HUNG_TESTS = 8;

/**
 * Runs each lab's shared tests against each target's sources and reports every test's
 * full name, state and, for a failure, its kind. Targets run as inline projects of one
 * vitest process (one per distinct shuffle seed), in a child process under a watchdog:
 * a test that blocks its worker forever is reported as a `timeout` failure, the process
 * is killed, and the targets it had not finished run again with that test skipped.
 *
 * Throws {@link InvalidRunTargetError} only for caller mistakes (duplicate labels,
 * relative paths); everything the tests or the sources do is in the reports.
 */
export async function runLabTargets(
  targets: readonly RunTarget[],
  options: RunOptions = {},
): Promise<TargetReport[]> {
  const prepared = targets.map(prepareTarget);
  assertUniqueLabels(prepared);
  const reports = new Map<string, TargetReport>();
  for (const batch of batchesBySeed(targets, prepared)) {
    for (const report of await runBatch(batch.targets, batch.seed, options)) {
      reports.set(report.label, report);
    }
  }
  return prepared.map(
    (target) => reports.get(target.label) ?? { label: target.label, tests: [], loadErrors: [] },
  );
}

function prepareTarget(target: RunTarget): ChildTarget {
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
  return {
    label: target.label,
    labDir: target.labDir,
    packageDir: target.packageDir,
    srcDir: target.srcDir ?? path.join(target.packageDir, "src"),
    shuffle: target.shuffleSeed !== undefined,
    testTimeoutMs: Math.min(target.testTimeoutMs ?? LAB_TEST_TIMEOUT_MS, LAB_TEST_TIMEOUT_MS),
    skip: [],
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

/** vitest takes one seed per process: targets with different seeds need their own process. */
function batchesBySeed(
  targets: readonly RunTarget[],
  prepared: readonly ChildTarget[],
): { seed: number | undefined; targets: ChildTarget[] }[] {
  const batches: { seed: number | undefined; targets: ChildTarget[] }[] = [];
  prepared.forEach((target, index) => {
    const seed = targets[index]?.shuffleSeed;
    const batch =
      seed === undefined
        ? batches[0]
        : batches.find((candidate) => candidate.seed === seed || candidate.seed === undefined);
    if (batch === undefined) batches.push({ seed, targets: [target] });
    else {
      batch.seed ??= seed;
      batch.targets.push(target);
    }
  });
  return batches;
}

/**
 * Runs groups of targets until every target has a report. A group whose process had to
 * be killed is run again: after a hung test, its unfinished targets with that test skipped;
 * after an idle or crashed process (a hang while importing, vitest failing to start), each
 * unfinished target alone, so one broken target cannot take the others down with it.
 */
async function runBatch(
  initial: readonly ChildTarget[],
  seed: number | undefined,
  options: RunOptions,
): Promise<TargetReport[]> {
  const hungTests = new Map<string, string[]>();
  const finished: TargetReport[] = [];
  const groups: ChildTarget[][] = [[...initial]];
  for (let pending = groups.shift(); pending !== undefined; pending = groups.shift()) {
    const result = await runRound(pending, {
      root: commonAncestor(pending.flatMap((target) => [target.labDir, target.packageDir])),
      seed,
      testTimeoutMs: LAB_TEST_TIMEOUT_MS,
      hangGraceMs: options.hangGraceMs ?? 3_000,
      idleMs: options.idleMs ?? 30_000,
      maxWorkers: options.maxWorkers ?? Math.max(2, os.availableParallelism()),
    });
    const end = result.end;
    const retry: ChildTarget[] = [];
    for (const target of pending) {
      const newlyHung = end.kind === "hung" ? (end.hung.get(target.label) ?? []) : [];
      const hung = [...(hungTests.get(target.label) ?? []), ...newlyHung];
      hungTests.set(target.label, hung);
      const complete = isComplete(result, target.label);
      const canRetry =
        (end.kind === "hung" && hung.length <= MAX_HUNG_TESTS) ||
        (end.kind !== "done" && end.kind !== "hung" && pending.length > 1);
      if (!complete && canRetry) {
        retry.push({ ...target, skip: hung });
        continue;
      }
      finished.push(buildReport(target, result, hung, complete ? undefined : end));
    }
    if (end.kind === "hung" && retry.length > 0) groups.push(retry);
    else if (end.kind !== "hung") groups.push(...retry.map((target) => [target]));
  }
  return finished;
}

function isComplete(result: RoundResult, label: string): boolean {
  const planned = result.planned.get(label);
  if (planned === undefined) return result.end.kind === "done";
  const done = new Set((result.modules.get(label) ?? []).map((module) => module.file));
  return planned.every((file) => done.has(file));
}

const HUNG_MESSAGE = `测试超过 ${LAB_TEST_TIMEOUT_MS} ms 仍未返回，且阻塞了事件循环（同步死循环？），已强制终止`;

function buildReport(
  target: ChildTarget,
  result: RoundResult,
  hung: readonly string[],
  incomplete: RoundResult["end"] | undefined,
): TargetReport {
  const hungSet = new Set(hung);
  const tests: TestOutcome[] = [];
  const loadErrors: { file: string; message: string }[] = [];
  const reported = result.modules.get(target.label) ?? [];
  for (const module of reported) {
    const file = relativeFile(target.labDir, module.file);
    if (module.tests.length === 0 && module.errors.length > 0) {
      loadErrors.push({ file, message: loadMessage(module.errors, target.labDir) });
      continue;
    }
    for (const test of module.tests) tests.push(toOutcome(test, file, module, hungSet));
  }
  if (incomplete !== undefined) {
    const done = new Set(reported.map((module) => module.file));
    const files = (result.planned.get(target.label) ?? []).filter((file) => !done.has(file));
    const why =
      incomplete.kind === "crashed"
        ? incomplete.message
        : "测试文件在限定时间内没有跑完（加载时卡死或重试次数用尽）";
    if (files.length === 0) loadErrors.push({ file: "tests", message: why });
    for (const file of files)
      loadErrors.push({ file: relativeFile(target.labDir, file), message: why });
  }
  return { label: target.label, tests, loadErrors };
}

function toOutcome(
  test: ModuleReport["tests"][number],
  file: string,
  module: ModuleReport,
  hung: ReadonlySet<string>,
): TestOutcome {
  if (hung.has(test.name)) {
    return {
      name: test.name,
      file,
      state: "failed",
      failure: { kind: "timeout", message: HUNG_MESSAGE },
    };
  }
  if (test.state === "failed") {
    return { name: test.name, file, state: "failed", failure: classifyFailure(test.errors) };
  }
  // A failing beforeAll/afterAll leaves tests without their own error: charge it to them.
  if (test.state === "skipped" && module.errors.length > 0) {
    return { name: test.name, file, state: "failed", failure: classifyFailure(module.errors) };
  }
  return { name: test.name, file, state: test.state };
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

function commonAncestor(paths: readonly string[]): string {
  const split = paths.map((entry) => path.resolve(entry).split(path.sep));
  const first = split[0] ?? [path.sep];
  let length = first.length;
  for (const parts of split) {
    let shared = 0;
    while (shared < length && parts[shared] === first[shared]) shared++;
    length = shared;
  }
  return first.slice(0, length).join(path.sep) || path.sep;
}
