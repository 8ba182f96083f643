/**
 * `runLabTargets`: a lab's shared tests against one or more source folders (a starter, a
 * solution, a mutant…), every target an inline project of one vitest child process
 * (`runner-child.ts`). The one backstop ends a child that reports no progress for
 * {@link NO_PROGRESS_MS}; the files it had not finished are reported as not run.
 */
import { type ChildProcess, fork } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { glob } from "tinyglobby";
import { SOURCE_CONDITION } from "../../../../source-condition.js";
import { InvalidRunTargetError } from "../errors.ts";
import { toPosixPath } from "../posix-path.ts";
import { createBackstop } from "./backstop.ts";
import { classifyFailure, type SerializedTestError, shortMessage } from "./classify.ts";
import {
  type ChildPackageRun,
  type ChildTarget,
  type ModuleReport,
  type PackageModuleReport,
  parseChildMessage,
  type RunJob,
} from "./protocol.ts";
import { NO_PROGRESS_MS } from "./settings.ts";
import type {
  PackageTestFile,
  PackageTestRun,
  RunTarget,
  TargetReport,
  TestOutcome,
} from "./targets.ts";

export interface RunOptions {
  /** The backstop's limit (tests shorten it). Default {@link NO_PROGRESS_MS}. */
  readonly noProgressMs?: number;
  /**
   * Called once for each target as soon as every file vitest planned for it has reported,
   * in the order targets finish (which varies from run to run): how a caller running many
   * targets shows its progress.
   */
  readonly onTargetDone?: (label: string) => void;
}

const CHILD = path.join(import.meta.dirname, "runner-child.ts");

/** Runs the targets; see the module comment. Throws only for a caller's mistake. */
export async function runLabTargets(
  targets: readonly RunTarget[],
  options: RunOptions = {},
): Promise<TargetReport[]> {
  return (await runLabAndPackageTests(targets, [], options)).reports;
}

/**
 * {@link runLabTargets}, and in the same vitest process the given test files of workspace
 * packages, each with its package's own vitest config (one vitest start instead of two).
 * A planned file without a report, when the run did not finish (backstop, a worker that died),
 * is listed without tests and with the reason as its `loadError`; a file vitest never planned
 * is missing from `packageFiles`.
 */
export async function runLabAndPackageTests(
  targets: readonly RunTarget[],
  packages: readonly PackageTestRun[],
  options: RunOptions = {},
): Promise<{ reports: TargetReport[]; packageFiles: PackageTestFile[] }> {
  const prepared = targets.map(prepareTarget);
  const labels = new Set<string>();
  for (const target of prepared) {
    if (labels.has(target.label)) {
      throw new InvalidRunTargetError(`two targets share the label ${target.label}`);
    }
    labels.add(target.label);
  }
  const runs = await Promise.all(packages.map(preparePackageRun));
  if (prepared.length === 0 && runs.length === 0) return { reports: [], packageFiles: [] };
  const result = await runChild(
    {
      type: "run",
      root: commonAncestor([
        ...prepared.flatMap((target) => [target.labDir, target.packageDir]),
        ...runs.map((run) => run.packageDir),
      ]),
      cacheDir: path.join(
        prepared[0]?.packageDir ?? runs[0]?.packageDir ?? os.tmpdir(),
        "node_modules",
        ".vite",
      ),
      targets: prepared,
      packages: runs,
      // One more than the cores: a worker that sits out a test's timeout (a timeout gate
      // waits 2 s doing nothing) leaves every core to the others. The loop guard counts a
      // worker's own CPU time, so sharing a core does not trip it.
      maxWorkers: os.availableParallelism() + 1,
    },
    options.noProgressMs ?? NO_PROGRESS_MS,
    options.onTargetDone,
  );
  const packageFiles: PackageTestFile[] = result.packageModules.map((module) => ({
    label: module.label,
    file: module.file,
    tests: module.tests,
    loadError: module.tests.length === 0 ? module.errors[0]?.message : undefined,
  }));
  // As for a lab target's files: a planned file left without a report says why.
  if (result.stopped !== undefined) {
    const done = new Set(packageFiles.map((entry) => entry.file));
    for (const run of runs) {
      for (const file of result.planned.get(run.label) ?? []) {
        if (!done.has(file)) {
          packageFiles.push({ label: run.label, file, tests: [], loadError: result.stopped });
        }
      }
    }
  }
  return { reports: prepared.map((target) => buildReport(target, result)), packageFiles };
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
  if (target.shuffleSeed !== undefined && !Number.isSafeInteger(target.shuffleSeed)) {
    throw new InvalidRunTargetError(
      `target ${target.label}: shuffleSeed must be an integer: ${target.shuffleSeed}`,
    );
  }
  return { ...target, srcDir: target.srcDir ?? path.join(target.packageDir, "src") };
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
  return configFile === undefined ? run : { ...run, configFile };
}

/** What the child reported, and why it ended if not by finishing. */
interface ChildResult {
  /** Planned files per target or package-run label. */
  readonly planned: Map<string, string[]>;
  readonly modules: Map<string, ModuleReport[]>;
  readonly forbidden: Map<string, { importer: string; specifier: string }[]>;
  readonly packageModules: PackageModuleReport[];
  /** Undefined when vitest finished; else why files may be missing (Chinese). */
  readonly stopped: string | undefined;
}

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Names the tests still running when a run stalled ("" when none had started). */
function stuckIn(running: ReadonlySet<string>): string {
  if (running.size === 0) return "";
  const names = [...running].map((name) => `"${name}"`);
  return `；当时还在运行的测试：${names.join("、")}`;
}

/** Forks the vitest child, hands it the job and collects its reports until it ends. */
function runChild(
  job: RunJob,
  noProgressMs: number,
  onTargetDone: ((label: string) => void) | undefined,
): Promise<ChildResult> {
  const result: ChildResult & { stopped: string | undefined } = {
    planned: new Map(),
    modules: new Map(),
    forbidden: new Map(),
    packageModules: [],
    stopped: undefined,
  };
  // The leader of its own process group: killing the group ends every vitest worker too.
  const child = fork(CHILD, [], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    execArgv: [`--conditions=${SOURCE_CONDITION}`],
  });
  let stderr = "";
  /** Tests that started and have not ended, by full name: what a stall names. */
  const running = new Set<string>();
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const kill = (): void => killProcessGroup(child);
  process.once("exit", kill);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (stopped: string | undefined): void => {
      if (settled) return;
      settled = true;
      backstop.stop();
      kill();
      process.removeListener("exit", kill);
      result.stopped = stopped;
      resolve(result);
    };
    const backstop = createBackstop(
      () =>
        finish(
          `没有运行完：测试 ${Math.round(noProgressMs / 1000)} s 没有任何进展（卡在依赖里的死循环或回溯失控的正则？），已终止${stuckIn(running)}`,
        ),
      noProgressMs,
    );
    backstop.running(true);
    child.on("message", (raw) => {
      backstop.progress();
      const parsed = parseChildMessage(raw);
      if (!parsed.ok) {
        finish(`vitest 子进程发来无法识别的消息：${parsed.problem}`);
        return;
      }
      const message = parsed.message;
      switch (message.type) {
        case "planned":
          for (const entry of message.files) push(result.planned, entry.project, entry.file);
          break;
        case "progress":
          if (message.started !== undefined) running.add(message.started);
          if (message.ended !== undefined) running.delete(message.ended);
          break;
        case "module": {
          const { type: _type, ...report } = message;
          push(result.modules, report.project, report);
          // vitest plans every file before the first one reports: the count is final.
          const reported = result.modules.get(report.project)?.length;
          if (reported === result.planned.get(report.project)?.length) {
            onTargetDone?.(report.project);
          }
          break;
        }
        case "forbidden-import":
          push(result.forbidden, message.project, {
            importer: message.importer,
            specifier: message.specifier,
          });
          break;
        case "package-module": {
          const { type: _type, ...report } = message;
          result.packageModules.push(report);
          break;
        }
        case "done": {
          const [first] = message.unhandledErrors;
          finish(first === undefined ? undefined : `没有运行完：vitest 在测试之外报错：${first}`);
          break;
        }
        case "fatal":
          finish(message.message);
          break;
        default: {
          const unreachable: never = message;
          return unreachable;
        }
      }
    });
    child.on("exit", (code, signal) => {
      const detail = stderr.trim() === "" ? "" : `\n${stderr.trim()}`;
      finish(`vitest 子进程意外退出（${code ?? signal}）${detail}`);
    });
    child.send(job);
  });
}

/** Ends a runner child with every worker of its process group; nothing if it has ended. */
function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** The deepest folder that holds every path given (`/` when they share none). */
export function commonAncestor(paths: readonly string[]): string {
  const split = paths.map((entry) => path.resolve(entry).split(path.sep));
  const first = split[0] ?? [""];
  let length = first.length;
  for (const parts of split) {
    let shared = 0;
    while (shared < length && parts[shared] === first[shared]) shared++;
    length = shared;
  }
  return first.slice(0, length).join(path.sep) || path.sep;
}

function buildReport(target: ChildTarget, result: ChildResult): TargetReport {
  const tests: TestOutcome[] = [];
  const loadErrors: { file: string; message: string }[] = [];
  const modules = result.modules.get(target.label) ?? [];
  for (const module of modules) {
    const file = relativeFile(target.labDir, module.file);
    if (module.tests.length === 0 && module.errors.length > 0) {
      loadErrors.push({ file, message: loadMessage(module.errors, target.labDir) });
      continue;
    }
    for (const test of module.tests) tests.push(toOutcome(test, file, module, target));
  }
  if (result.stopped !== undefined) {
    const done = new Set(modules.map((module) => module.file));
    const missing = (result.planned.get(target.label) ?? []).filter((file) => !done.has(file));
    if (missing.length === 0 && modules.length === 0) {
      loadErrors.push({ file: "tests", message: result.stopped });
    }
    for (const file of missing) {
      loadErrors.push({ file: relativeFile(target.labDir, file), message: result.stopped });
    }
  }
  const forbiddenImports = (result.forbidden.get(target.label) ?? []).map((entry) => ({
    file: relativeFile(target.labDir, entry.importer),
    specifier: entry.specifier,
  }));
  return { label: target.label, tests, loadErrors, forbiddenImports };
}

function toOutcome(
  test: ModuleReport["tests"][number],
  file: string,
  module: ModuleReport,
  target: ChildTarget,
): TestOutcome {
  const modifier = test.modifier === undefined ? {} : { modifier: test.modifier };
  if (test.state === "failed") {
    const failure = classifyFailure(test.errors, target.labDir);
    return { name: test.name, file, state: "failed", failure, ...modifier };
  }
  // A failing beforeAll/afterAll leaves tests without their own error: charge it to them.
  if (test.state === "skipped" && module.errors.length > 0 && test.modifier === undefined) {
    const failure = classifyFailure(module.errors, target.labDir);
    return { name: test.name, file, state: "failed", failure };
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
