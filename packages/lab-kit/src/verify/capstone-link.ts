import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";

/** `import … from "x"`, `export … from "x"`, `import "x"`, `import("x")`. */
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s*)?["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;
/** `export … from "x"` only: the edges an entry point passes on. */
const RE_EXPORT = /(?:^|[\s;])export\s+(?:type\s+)?[^'"`;]*?\sfrom\s*["']([^"']+)["']/g;

/** The workspace packages, by name, with their folder and `exports` map. */
export interface WorkspacePackage {
  readonly dir: string;
  readonly exports: Readonly<Record<string, string>>;
}

/** Every workspace package under `packages/`, by name. */
export async function workspacePackages(repoRoot: string): Promise<Map<string, WorkspacePackage>> {
  const found = new Map<string, WorkspacePackage>();
  const manifests = await glob("packages/*/package.json", { cwd: repoRoot });
  for (const manifestFile of manifests.sort()) {
    try {
      const manifest = JSON.parse(await readFile(path.join(repoRoot, manifestFile), "utf8")) as {
        name?: unknown;
        exports?: unknown;
      };
      if (typeof manifest.name !== "string") continue;
      const raw =
        typeof manifest.exports === "string" ? { ".": manifest.exports } : manifest.exports;
      // Only string targets: a conditions object is no source file this check can follow.
      const exports = Object.fromEntries(
        Object.entries(Object(raw)).filter(
          (entry): entry is [string, string] => typeof entry[1] === "string",
        ),
      );
      found.set(manifest.name, { dir: path.join(repoRoot, path.dirname(manifestFile)), exports });
    } catch {
      // not a package
    }
  }
  return found;
}

/** The file a specifier names, or undefined when it is not a workspace source file. */
async function resolveSpecifier(
  specifier: string,
  importer: string,
  packages: ReadonlyMap<string, WorkspacePackage>,
): Promise<string | undefined> {
  let base: string | undefined;
  if (specifier.startsWith(".")) base = path.resolve(path.dirname(importer), specifier);
  else {
    for (const [name, entry] of packages) {
      if (specifier !== name && !specifier.startsWith(`${name}/`)) continue;
      const subpath = `.${specifier.slice(name.length)}`;
      const target = entry.exports[subpath];
      if (target !== undefined) base = path.join(entry.dir, target);
    }
  }
  if (base === undefined) return undefined;
  const candidates = [base, `${base}.ts`, path.join(base, "index.ts")];
  return candidates.find((file) => /\.[cm]?[jt]sx?$/.test(file) && existsSync(file));
}

/**
 * True when `testFile` imports one of `targets`: directly, or through an entry point
 * (a package's `exports`, an index) whose `export … from` chain reaches it. Plain imports
 * inside the package are not followed: a test of one module does not prove another.
 */
async function importsAnyOf(
  testFile: string,
  targets: ReadonlySet<string>,
  packages: ReadonlyMap<string, WorkspacePackage>,
): Promise<boolean> {
  const seen = new Set<string>();
  // The test file's every import, then only the `export … from` edges of what it reaches.
  const queue = [{ file: testFile, edges: SPECIFIER }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next.file)) continue;
    seen.add(next.file);
    const source = await readFile(next.file, "utf8").catch(() => "");
    for (const match of source.matchAll(next.edges)) {
      const resolved = await resolveSpecifier(match[1] ?? match[2] ?? "", next.file, packages);
      if (resolved === undefined) continue;
      if (targets.has(resolved)) return true;
      queue.push({ file: resolved, edges: RE_EXPORT });
    }
  }
  return false;
}

/**
 * Problems with the link between a lesson and its capstone increment: every file in
 * `capstone.files` exists, and every test file in `capstone.tests` imports at least one of
 * them (directly, or through the package entry or an index that re-exports it).
 */
export async function capstoneLinkProblems(
  repoRoot: string,
  capstone: { readonly files: readonly string[]; readonly tests: readonly string[] },
  packages: ReadonlyMap<string, WorkspacePackage>,
): Promise<string[]> {
  const problems: string[] = [];
  const targets = new Set<string>();
  for (const file of capstone.files) {
    const absolute = path.join(repoRoot, file);
    if (existsSync(absolute)) targets.add(absolute);
    else problems.push(`capstone.files 中的 ${file} 不存在`);
  }
  if (targets.size === 0) return problems;
  for (const test of capstone.tests) {
    const absolute = path.join(repoRoot, test);
    if (!existsSync(absolute)) continue;
    if (!(await importsAnyOf(absolute, targets, packages))) {
      problems.push(
        `${test} 没有导入 capstone.files 中的任何模块（直接导入，或经包入口转出）：它证明不了这一课的增量`,
      );
    }
  }
  return problems;
}
