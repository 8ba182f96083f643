import { existsSync } from "node:fs";
import path from "node:path";
import type { PackageTestFile, PackageTestRun } from "../run/targets.ts";
import type { WorkspacePackage } from "./capstone-link.ts";

/** What the capstone package's own test run said about one test file. */
export interface CapstoneFileResult {
  readonly passed: number;
  /** Full names of every test the file holds, for rubric proofs that cite them. */
  readonly testNames: readonly string[];
  /** Failing tests or, for a file that did not load or does not exist, the reason. */
  readonly problems: readonly string[];
}

/**
 * The capstone test files the manifests name, each to run (`runs`) with its package's own
 * vitest config in the lab targets' vitest process; `finish` gives every requested file's
 * result from what that run reported. Missing packages or files are reported, not run.
 */
export function planCapstoneTests(
  repoRoot: string,
  packages: ReadonlyMap<string, WorkspacePackage>,
  requests: readonly { readonly packageName: string; readonly files: readonly string[] }[],
): {
  readonly runs: readonly PackageTestRun[];
  finish(files: readonly PackageTestFile[]): Map<string, CapstoneFileResult>;
} {
  const results = new Map<string, CapstoneFileResult>();
  const byPackage = new Map<string, Set<string>>();
  for (const { packageName, files } of requests) {
    byPackage.set(packageName, new Set([...(byPackage.get(packageName) ?? []), ...files]));
  }
  const runs: PackageTestRun[] = [];
  const toRun: string[] = [];
  for (const [packageName, files] of byPackage) {
    const packageDir = packages.get(packageName)?.dir;
    const present: string[] = [];
    for (const file of files) {
      if (packageDir === undefined) {
        results.set(file, missing(`找不到总项目包 ${packageName}`));
      } else if (!existsSync(path.join(repoRoot, file))) {
        results.set(file, missing("测试文件不存在"));
      } else present.push(file);
    }
    if (packageDir === undefined || present.length === 0) continue;
    toRun.push(...present);
    runs.push({
      label: packageName,
      packageDir,
      files: present.map((file) => path.join(repoRoot, file)),
    });
  }
  return {
    runs,
    finish(files) {
      for (const file of toRun) {
        results.set(file, resultOf(path.join(repoRoot, file), files));
      }
      return results;
    },
  };
}

function resultOf(absolute: string, files: readonly PackageTestFile[]): CapstoneFileResult {
  const entry = files.find((candidate) => path.resolve(candidate.file) === absolute);
  if (entry === undefined) return missing("没有运行：vitest 没有报告这个文件");
  const problems = entry.tests
    .filter((test) => test.state === "failed")
    .map(
      (test) => `测试失败："${test.name}"${test.error === undefined ? "" : `（${test.error}）`}`,
    );
  if (entry.tests.length === 0) {
    problems.push(`无法加载：${(entry.loadError ?? "没有测试").split("\n")[0] ?? ""}`);
  }
  const passed = entry.tests.filter((test) => test.state === "passed").length;
  return { passed, testNames: entry.tests.map((test) => test.name), problems };
}

function missing(problem: string): CapstoneFileResult {
  return { passed: 0, testNames: [], problems: [problem] };
}
