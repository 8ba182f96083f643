import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { readKeyed, sharedContentKey, writeKeyed } from "../content-key.ts";
import { pathExists } from "../path-exists.ts";
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

const VITEST = path.join(
  path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")),
  "vitest.mjs",
);

const jsonReport = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      message: z.string().optional(),
      assertionResults: z.array(
        z.object({
          ancestorTitles: z.array(z.string()),
          fullName: z.string(),
          status: z.string(),
          title: z.string(),
        }),
      ),
    }),
  ),
});

/**
 * Runs the capstone test files a manifest names, with the capstone package's own vitest
 * config, one vitest process per package. Missing packages or files are reported, not thrown.
 */
export async function runCapstoneTests(
  repoRoot: string,
  requests: readonly { readonly packageName: string; readonly files: readonly string[] }[],
  options: { readonly cache?: boolean } = {},
): Promise<Map<string, CapstoneFileResult>> {
  const results = new Map<string, CapstoneFileResult>();
  const byPackage = new Map<string, Set<string>>();
  for (const request of requests) {
    const files = byPackage.get(request.packageName) ?? new Set<string>();
    for (const file of request.files) files.add(file);
    byPackage.set(request.packageName, files);
  }
  const packageDirs = await workspacePackages(repoRoot);
  const cache = options.cache === true ? await capstoneCache(repoRoot) : undefined;
  await Promise.all(
    [...byPackage].map(async ([packageName, files]) => {
      const packageDir = packageDirs.get(packageName)?.dir;
      const present: string[] = [];
      for (const file of files) {
        if (packageDir === undefined) {
          results.set(file, missing(file, `找不到总项目包 ${packageName}`));
        } else if (!(await pathExists(path.join(repoRoot, file)))) {
          results.set(file, missing(file, "测试文件不存在"));
        } else present.push(file);
      }
      if (packageDir === undefined || present.length === 0) return;
      const toRun = present.filter((file) => {
        const hit = cache?.read(file);
        if (hit !== undefined) results.set(file, hit);
        return hit === undefined;
      });
      if (toRun.length === 0) return;
      for (const result of await runVitest(repoRoot, packageDir, toRun)) {
        results.set(result.file, result);
        cache?.keep(result);
      }
    }),
  );
  await cache?.save();
  return results;
}

async function runVitest(
  repoRoot: string,
  packageDir: string,
  files: readonly string[],
): Promise<CapstoneFileResult[]> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), "lab-kit-capstone-"));
  const output = path.join(tempDir, "report.json");
  const relative = files.map((file) => path.relative(packageDir, path.join(repoRoot, file)));
  let stderr: string;
  let report: z.infer<typeof jsonReport> | undefined;
  try {
    stderr = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [
          VITEST,
          "run",
          // vitest's on-disk cache of transformed modules, keyed by each file's path and
          // content and the config: the package's sources are not transformed again on
          // every verify (~0.3 s of CPU for agent-core).
          "--experimental.fsModuleCache",
          "--reporter=json",
          `--outputFile=${output}`,
          ...relative,
        ],
        { cwd: packageDir, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } },
        (_error, _stdout, text) => resolve(text),
      );
    });
    try {
      report = jsonReport.parse(JSON.parse(await readFile(output, "utf8")));
    } catch {
      report = undefined;
    }
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
  return files.map((file) => {
    const absolute = path.join(repoRoot, file);
    const entry = report?.testResults.find((result) => path.resolve(result.name) === absolute);
    if (entry === undefined) {
      const reason = stderr.split("\n").find((line) => line.trim() !== "") ?? "vitest 没有报告";
      return missing(file, `没有运行：${reason.trim()}`);
    }
    const failed = entry.assertionResults.filter((test) => test.status === "failed");
    const problems = failed.map((test) => `测试失败："${test.fullName}"`);
    if (entry.assertionResults.length === 0 && entry.message) {
      problems.push(`无法加载：${entry.message.split("\n")[0] ?? ""}`);
    }
    const passed = entry.assertionResults.filter((test) => test.status === "passed").length;
    // Named like lab tests: describe titles and the title joined by " > " (the JSON
    // reporter's own fullName joins them with spaces).
    const testNames = entry.assertionResults.map((test) =>
      [...test.ancestorTitles, test.title].join(" > "),
    );
    return { file, passed, testNames, problems };
  });
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
