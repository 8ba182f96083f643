/**
 * Content keys for the course tools' caches (verify verdicts, lesson progress): a hash of
 * exactly the files a result depends on, so a cached result is reused only while none of
 * them has changed. Generated folders are never part of a key.
 */
import { createHash, type Hash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
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
