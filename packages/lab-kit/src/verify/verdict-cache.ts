import { createHash, type Hash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
import { z } from "zod";
import type { LabLocation } from "../labs.ts";
import { toPosixPath } from "../posix-path.ts";

/** Where verdicts of sound labs are kept, under the git-ignored `.lab-kit/`. */
const CACHE_DIR = path.join(".lab-kit", "verify-cache");
const GENERATED = [
  "**/node_modules/**",
  "**/.lab-kit/**",
  "**/.turbo/**",
  "**/dist/**",
  "**/coverage/**",
];

const cachedVerdict = z.object({
  key: z.string(),
  title: z.string().optional(),
  checks: z.array(z.object({ ok: z.literal(true), text: z.string() })),
  /** The learner lines for a working-tree starter equal to HEAD's (not started). */
  untouchedLearner: z.array(z.string()),
});

export type CachedVerdict = z.infer<typeof cachedVerdict>;

async function hashFiles(repoRoot: string, patterns: string[], hash: Hash): Promise<void> {
  const files = await glob(patterns, { cwd: repoRoot, ignore: GENERATED, dot: true });
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(await readFile(path.join(repoRoot, file)));
    hash.update("\0");
  }
}

/**
 * The part of every lab's key that does not depend on the lab: every workspace package
 * under `packages/` (the capstone, the libraries labs import, lab-kit itself), the lockfile,
 * the root configs, the Node version and the seed asked for.
 */
export async function sharedKey(repoRoot: string, seed: number | undefined): Promise<string> {
  const hash = createHash("sha256");
  hash.update(`lab-kit verify v1\0${process.version}\0${seed ?? "random"}\0`);
  await hashFiles(
    repoRoot,
    ["packages/**", "pnpm-lock.yaml", "package.json", "pnpm-workspace.yaml", "tsconfig.base.json"],
    hash,
  );
  return hash.digest("hex");
}

/**
 * The content hash a lab's verdict depends on: the shared key, every file of the lab as it
 * is in the working tree, and its committed starter. Any change to any of them is a new key.
 */
export async function verdictKey(
  repoRoot: string,
  shared: string,
  lab: LabLocation,
  committedStarter: ReadonlyMap<string, string>,
): Promise<string> {
  const hash = createHash("sha256");
  hash.update(`${shared}\0`);
  await hashFiles(repoRoot, [`${toPosixPath(path.relative(repoRoot, lab.dir))}/**`], hash);
  for (const [file, content] of [...committedStarter].sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(`HEAD:${file}\0${content}\0`);
  }
  return hash.digest("hex");
}

function cacheFile(repoRoot: string, lab: LabLocation): string {
  return path.join(repoRoot, CACHE_DIR, `${lab.id}-${lab.slug}.json`);
}

/** The cached verdict for this key, if one was stored (only sound verdicts are). */
export async function readCachedVerdict(
  repoRoot: string,
  lab: LabLocation,
  key: string,
): Promise<CachedVerdict | undefined> {
  try {
    const parsed = cachedVerdict.safeParse(
      JSON.parse(await readFile(cacheFile(repoRoot, lab), "utf8")),
    );
    return parsed.success && parsed.data.key === key ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Stores a sound verdict under its key; a failed check is never cached. */
export async function writeCachedVerdict(
  repoRoot: string,
  lab: LabLocation,
  entry: CachedVerdict,
): Promise<void> {
  const file = cacheFile(repoRoot, lab);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(entry, null, 2)}\n`);
}
