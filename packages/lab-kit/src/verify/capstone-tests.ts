import path from "node:path";
import { z } from "zod";
import { readKeyed, sharedContentKey, writeKeyed } from "../content-key.ts";
import { pathExists } from "../path-exists.ts";
import { runLabAndPackageTests } from "../run/runner.ts";
import type { PackageTestFile, PackageTestRun } from "../run/targets.ts";
import { workspacePackages } from "./capstone-link.ts";

/** What the capstone package's own test run said about one test file. */
export interface CapstoneFileResult {
  /** Path relative to the repository root, as the manifest names it. */
  readonly file: string;
  readonly passed: number;
  /** Full names of every test the file holds, for rubric proofs that cite them. */
  readonly testNames: readonly string[];
  /** Failing tests or, for a file that did not load or does not exist, the reason. */
  readonly problems: readonly string[];
}

/** Capstone test files to run, and how to turn what they did into results. */
export interface CapstonePlan {
  /** Files not answered from the cache, per package: run them with `runLabAndPackageTests`. */
  readonly runs: readonly PackageTestRun[];
  /** Every requested file's result: from the cache, missing, or from `files`; caches passes. */
  finish(files: readonly PackageTestFile[]): Promise<Map<string, CapstoneFileResult>>;
}

/**
 * Runs the capstone test files a manifest names, each with its package's own vitest
 * config. Missing packages or files are reported, not thrown.
 */
export async function runCapstoneTests(
  repoRoot: string,
  requests: readonly { readonly packageName: string; readonly files: readonly string[] }[],
  options: { readonly cache?: boolean } = {},
): Promise<Map<string, CapstoneFileResult>> {
  const plan = await planCapstoneTests(repoRoot, requests, options);
  const { packageFiles } = await runLabAndPackageTests([], plan.runs);
  return plan.finish(packageFiles);
}

/**
 * What {@link runCapstoneTests} runs, so a caller can run it in the same vitest process
 * as lab targets (`verify:lesson`: one vitest start fewer).
 */
export async function planCapstoneTests(
  repoRoot: string,
  requests: readonly { readonly packageName: string; readonly files: readonly string[] }[],
  options: { readonly cache?: boolean } = {},
): Promise<CapstonePlan> {
  const results = new Map<string, CapstoneFileResult>();
  const byPackage = new Map<string, Set<string>>();
  for (const request of requests) {
    const files = byPackage.get(request.packageName) ?? new Set<string>();
    for (const file of request.files) files.add(file);
    byPackage.set(request.packageName, files);
  }
  const packageDirs = await workspacePackages(repoRoot);
  const cache = options.cache === true ? await capstoneCache(repoRoot) : undefined;
  const runs: PackageTestRun[] = [];
  const toRun: string[] = [];
  for (const [packageName, files] of byPackage) {
    const packageDir = packageDirs.get(packageName)?.dir;
    const present: string[] = [];
    for (const file of files) {
      if (packageDir === undefined) {
        results.set(file, missing(file, `找不到总项目包 ${packageName}`));
      } else if (!(await pathExists(path.join(repoRoot, file)))) {
        results.set(file, missing(file, "测试文件不存在"));
      } else present.push(file);
    }
    if (packageDir === undefined) continue;
    const uncached = present.filter((file) => {
      const hit = cache?.read(file);
      if (hit !== undefined) results.set(file, hit);
      return hit === undefined;
    });
    if (uncached.length === 0) continue;
    toRun.push(...uncached);
    runs.push({
      label: packageName,
      packageDir,
      files: uncached.map((file) => path.join(repoRoot, file)),
    });
  }
  return {
    runs,
    async finish(files) {
      for (const file of toRun) {
        const result = resultOf(file, path.join(repoRoot, file), files);
        results.set(file, result);
        cache?.keep(result);
      }
      await cache?.save();
      return results;
    },
  };
}

function resultOf(
  file: string,
  absolute: string,
  files: readonly PackageTestFile[],
): CapstoneFileResult {
  const entry = files.find((candidate) => path.resolve(candidate.file) === absolute);
  if (entry === undefined) return missing(file, "没有运行：vitest 没有报告这个文件");
  const problems = entry.tests
    .filter((test) => test.state === "failed")
    .map((test) => `测试失败："${test.name}"`);
  if (entry.tests.length === 0) {
    problems.push(`无法加载：${(entry.loadError ?? "没有测试").split("\n")[0] ?? ""}`);
  }
  const passed = entry.tests.filter((test) => test.state === "passed").length;
  return { file, passed, testNames: entry.tests.map((test) => test.name), problems };
}

const CACHE_FILE = path.join(".lab-kit", "capstone-cache.json");

const CachedResultsSchema = z.object({
  key: z.string(),
  files: z.record(
    z.string(),
    z.object({
      file: z.string(),
      passed: z.number(),
      testNames: z.array(z.string()),
      problems: z.array(z.string()).max(0),
    }),
  ),
});

/**
 * The passing capstone test files of the last verify runs, kept while nothing they can
 * depend on changed: every file under `packages/`, the lockfile, the root configs and the
 * Node version (`sharedContentKey`). An author who edits a lab then re-verifies it without
 * running the capstone's tests again. A file with a problem is never kept.
 */
async function capstoneCache(repoRoot: string) {
  const key = await sharedContentKey(repoRoot, "lab-kit capstone tests v1");
  const file = path.join(repoRoot, CACHE_FILE);
  const stored = (await readKeyed(file, CachedResultsSchema, key)) ?? { key, files: {} };
  let changed = false;
  return {
    read: (test: string): CapstoneFileResult | undefined => stored.files[test],
    keep(result: CapstoneFileResult): void {
      if (result.problems.length > 0) return;
      stored.files[result.file] = { ...result, testNames: [...result.testNames], problems: [] };
      changed = true;
    },
    async save(): Promise<void> {
      if (changed) await writeKeyed(file, stored);
    },
  };
}

function missing(file: string, problem: string): CapstoneFileResult {
  return { file, passed: 0, testNames: [], problems: [problem] };
}
