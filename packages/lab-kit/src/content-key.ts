/**
 * Content keys for the course tools' caches (verify verdicts, lesson progress): a hash of
 * exactly the files a result depends on, so a cached result is reused only while none of
 * them has changed. Generated folders are never part of a key.
 */
import { createHash, type Hash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
import type { z } from "zod";
import { toPosixPath } from "./posix-path.ts";

/** What tools write into the tree (all git-ignored): never part of a key. */
const GENERATED = [
  "**/node_modules/**",
  "**/reports/**",
  "**/.lab-kit/**",
  "**/.turbo/**",
  "**/dist/**",
  "**/coverage/**",
];

/** Feeds every file matching `patterns` under `repoRoot` (path and bytes, sorted) to `hash`. */
export async function hashFiles(repoRoot: string, patterns: string[], hash: Hash): Promise<void> {
  const files = await glob(patterns, { cwd: repoRoot, ignore: GENERATED, dot: true });
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(await readFile(path.join(repoRoot, file)));
    hash.update("\0");
  }
}

/**
 * The part of a key that does not depend on the lab: `salt` (what is cached, and its
 * version), the Node version, every workspace package under `packages/` (the capstone,
 * the libraries labs import, lab-kit itself), the lockfile and the root configs.
 */
export async function sharedContentKey(repoRoot: string, salt: string): Promise<string> {
  const hash = createHash("sha256");
  hash.update(`${salt}\0${process.version}\0`);
  await hashFiles(
    repoRoot,
    [
      "packages/**",
      "pnpm-lock.yaml",
      "package.json",
      "pnpm-workspace.yaml",
      "tsconfig.base.json",
      "source-condition.js",
    ],
    hash,
  );
  return hash.digest("hex");
}

/** `shared` plus every file of the lab folder `labDir` as it is in the working tree. */
export async function labContentKey(
  repoRoot: string,
  shared: string,
  labDir: string,
  extra: (hash: Hash) => void = () => {},
): Promise<string> {
  const hash = createHash("sha256");
  hash.update(`${shared}\0`);
  await hashFiles(repoRoot, [`${toPosixPath(path.relative(repoRoot, labDir))}/**`], hash);
  extra(hash);
  return hash.digest("hex");
}

/** The file of one lab's entry in the cache folder `.lab-kit/<cache>/` of the repository. */
export function labCacheFile(
  repoRoot: string,
  cache: "verify-cache" | "lessons-cache",
  lab: { readonly id: string; readonly slug: string },
): string {
  return path.join(repoRoot, ".lab-kit", cache, `${lab.id}-${lab.slug}.json`);
}

/**
 * The JSON stored in `file` when it matches `schema` and was stored under `key`;
 * undefined when it is missing, unreadable, of another shape or of another key.
 */
export async function readKeyed<T extends { readonly key: string }>(
  file: string,
  schema: z.ZodType<T>,
  key: string,
): Promise<T | undefined> {
  try {
    const parsed = schema.safeParse(JSON.parse(await readFile(file, "utf8")));
    return parsed.success && parsed.data.key === key ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stores `entry` (which carries its key) as JSON in `file`. A cache that cannot be
 * written (a read-only checkout) only makes the next run slower: the error is dropped.
 */
export async function writeKeyed<T extends { readonly key: string }>(
  file: string,
  entry: T,
): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // Nothing is lost: the result was computed and is returned all the same.
  }
}
