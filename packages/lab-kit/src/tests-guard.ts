// Global setup of every lab's own test run (`pnpm --dir labs/NN-slug/starter test`): a
// learner could make a lab "pass" by weakening its shared tests, so the run says plainly
// when `tests/` differs from the committed version, with the same check and words as
// `pnpm lessons` and `pnpm lesson`.
import path from "node:path";
import { checkTestsIntegrity, describeIntegrity } from "./learner/tampering.ts";

/**
 * The Chinese notice when a lab's `tests/` differ from HEAD; undefined when they match or
 * cannot be compared (no repository, or a lab not committed yet: an author at work).
 */
export async function changedTestsNotice(labDir: string): Promise<string | undefined> {
  const integrity = await checkTestsIntegrity({ testsDir: path.join(labDir, "tests") });
  if (integrity.state !== "changed") return undefined;
  return describeIntegrity({ name: `labs/${path.basename(labDir)}` }, integrity);
}

/** Vitest global setup: warns on stderr when the lab's tests were changed. */
export default async function warnIfTestsChanged(project: {
  readonly config: { readonly dir?: string; readonly root: string };
}): Promise<void> {
  const notice = await changedTestsNotice(project.config.dir ?? path.dirname(project.config.root));
  if (notice !== undefined) process.stderr.write(`\n${notice}\n\n`);
}
