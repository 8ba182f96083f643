import { z } from "zod";
import { labContentKey, sharedContentKey } from "../content-key.ts";
import type { LabLocation } from "../labs.ts";

/** A sound verdict as `.lab-kit/verify-cache/` keeps it (a failed one is never kept). */
export const cachedVerdictSchema = z.object({
  key: z.string(),
  title: z.string().optional(),
  checks: z.array(z.object({ ok: z.literal(true), text: z.string() })),
  /** The learner lines for a working-tree starter equal to HEAD's (not started). */
  untouchedLearner: z.array(z.string()),
});

export type CachedVerdict = z.infer<typeof cachedVerdictSchema>;

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
