import path from "node:path";
import { z } from "zod";
import { labContentKey, readKeyed, sharedContentKey, writeKeyed } from "../content-key.ts";
import type { LabLocation } from "../labs.ts";

/** Where verdicts of sound labs are kept, under the git-ignored `.lab-kit/`. */
const CACHE_DIR = path.join(".lab-kit", "verify-cache");

const cachedVerdict = z.object({
  key: z.string(),
  title: z.string().optional(),
  checks: z.array(z.object({ ok: z.literal(true), text: z.string() })),
  /** The learner lines for a working-tree starter equal to HEAD's (not started). */
  untouchedLearner: z.array(z.string()),
});

export type CachedVerdict = z.infer<typeof cachedVerdict>;

/**
 * The part of every lab's key that does not depend on the lab (see `sharedContentKey`),
 * and the seed asked for.
 */
export function sharedKey(repoRoot: string, seed: number | undefined): Promise<string> {
  return sharedContentKey(repoRoot, `lab-kit verify v1\0${seed ?? "random"}`);
}

/**
 * The content hash a lab's verdict depends on: the shared key, every file of the lab as it
 * is in the working tree, and its committed starter. Any change to any of them is a new key.
 */
export function verdictKey(
  repoRoot: string,
  shared: string,
  lab: LabLocation,
  committedStarter: ReadonlyMap<string, string>,
): Promise<string> {
  return labContentKey(repoRoot, shared, lab.dir, (hash) => {
    for (const [file, content] of [...committedStarter].sort(([a], [b]) => a.localeCompare(b))) {
      hash.update(`HEAD:${file}\0${content}\0`);
    }
  });
}

function cacheFile(repoRoot: string, lab: LabLocation): string {
  return path.join(repoRoot, CACHE_DIR, `${lab.id}-${lab.slug}.json`);
}

/** The cached verdict for this key, if one was stored (only sound verdicts are). */
export function readCachedVerdict(
  repoRoot: string,
  lab: LabLocation,
  key: string,
): Promise<CachedVerdict | undefined> {
  return readKeyed(cacheFile(repoRoot, lab), cachedVerdict, key);
}

/** Stores a sound verdict under its key; a failed check is never cached. */
export function writeCachedVerdict(
  repoRoot: string,
  lab: LabLocation,
  entry: CachedVerdict,
): Promise<void> {
  return writeKeyed(cacheFile(repoRoot, lab), entry);
}
