import { execFile } from "node:child_process";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { listLabs } from "../src/labs.ts";
import type { LabVerdict } from "../src/verify/check-line.ts";
import { type VerifyOptions, verifyLessons } from "../src/verify/verify-lessons.ts";
import { copyFixture } from "./fixture-repo.ts";

const run = promisify(execFile);
/** The one sound lab every variant starts from. */
export const SOUND = "01-sound";

/** One change to a file of a variant lab (relative to the lab folder). */
export interface Edit {
  readonly file: string;
  readonly edit: (text: string) => string;
}

/** A copy of the sound lab under a new folder, changed by `edits` before the commit and by `after` after it. */
export interface Variant {
  readonly folder: string;
  readonly edits?: readonly Edit[];
  /** Changes made after the commit: a learner's or an author's uncommitted work. */
  readonly after?: readonly Edit[];
}

/** Replaces `find` (which must occur) in a file's text. */
export function replace(file: string, find: string, by: string): Edit {
  return {
    file,
    edit: (text) => {
      if (!text.includes(find))
        throw new Error(`fixture edit: ${JSON.stringify(find)} not in ${file}`);
      return text.replace(find, () => by);
    },
  };
}

async function applyEdits(dir: string, edits: readonly Edit[]): Promise<void> {
  for (const { file, edit } of edits) {
    const target = path.join(dir, file);
    const before = await readFile(target, "utf8").catch(() => "");
    await writeFile(target, edit(before));
  }
}

async function writeVariant(repo: string, variant: Variant): Promise<void> {
  const [id = "", ...slug] = variant.folder.split("-");
  const dir = path.join(repo, "labs", variant.folder);
  await cp(path.join(repo, "labs", SOUND), dir, { recursive: true });
  const manifestFile = path.join(dir, "lesson.json");
  const manifest = (await readFile(manifestFile, "utf8"))
    .replace('"id": "01"', `"id": "${id}"`)
    .replace('"slug": "sound"', `"slug": "${slug.join("-")}"`);
  await writeFile(manifestFile, manifest);
  for (const side of ["starter", "solution"]) {
    const source = path.join(dir, side, "src", "index.ts");
    await writeFile(source, (await readFile(source, "utf8")).replace("lab-01", `lab-${id}`));
  }
  await applyEdits(dir, variant.edits ?? []);
}

/** A fixture repository: the sound lab and the variants, committed, then the `after` edits. */
export async function buildVerifyRepo(
  name: string,
  variants: readonly Variant[],
  options: { readonly withSound?: boolean } = {},
): Promise<{ repo: string; cleanup: () => Promise<void> }> {
  const { root, dir: repo } = await copyFixture("verify-repo");
  await writeFile(path.join(repo, ".gitignore"), "node_modules\n.lab-kit/\n");
  for (const variant of variants) await writeVariant(repo, variant);
  if (options.withSound === false) {
    await rm(path.join(repo, "labs", SOUND), { recursive: true, force: true });
  }
  const git = (...args: string[]) => run("git", args, { cwd: repo });
  await git("init", "-q");
  await git("add", ".");
  await git("-c", "user.name=fixture", "-c", "user.email=f@example.com", "commit", "-qm", name);
  for (const variant of variants) {
    await applyEdits(path.join(repo, "labs", variant.folder), variant.after ?? []);
  }
  return { repo, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Verifies every lab of a fixture repository (seed 7). The runner's default hang grace is
 * kept: on a loaded machine a shorter one takes a slow test for a hung one.
 */
export async function verifyAll(repo: string, options: VerifyOptions = {}): Promise<LabVerdict[]> {
  return verifyLessons(repo, await listLabs(repo), { seed: 7, ...options });
}

/** Lookups into a set of verdicts. */
export function verdictsOf(verdicts: readonly LabVerdict[]) {
  const verdict = (id: string): LabVerdict => {
    const found = verdicts.find((entry) => entry.id === id);
    if (found === undefined) throw new Error(`no verdict for lab ${id}`);
    return found;
  };
  const failures = (id: string): string[] =>
    verdict(id)
      .checks.filter((check) => !check.ok)
      .map((check) => check.text);
  return { verdict, failures };
}
