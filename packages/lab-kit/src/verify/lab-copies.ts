import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
import { type Mutation, mutationEdits } from "../manifest.ts";
import { toPosixPath } from "../posix-path.ts";

/** Folder, inside a starter or solution, for generated copies (git-ignored). */
export const COPIES_DIR = ".lab-kit";

/** The starter as committed, written where its imports still resolve. */
export interface PristineStarter {
  /** `<starter>/.lab-kit/pristine/src`. */
  readonly srcDir: string;
  /** Its files, keyed `src/…`. */
  readonly files: ReadonlyMap<string, string>;
  /** False when HEAD has no starter (a brand-new lesson): the working tree stood in. */
  readonly committed: boolean;
}

/**
 * HEAD's `starter/src` (`committed`), to be written to `<starter>/.lab-kit/pristine/src` so
 * that the verdict on the starter ignores a learner's edits; the working tree when nothing
 * is committed.
 */
export async function readPristineStarter(
  starterDir: string,
  committed: ReadonlyMap<string, Buffer> | undefined,
): Promise<PristineStarter> {
  const files =
    committed === undefined
      ? await readSourceTree(starterDir)
      : new Map([...committed].map(([file, content]) => [`src/${file}`, content.toString("utf8")]));
  const srcDir = path.join(starterDir, COPIES_DIR, "pristine", "src");
  return { srcDir, files, committed: committed !== undefined };
}

/** A mutant of the solution (its files, and where they are written), or why it cannot be made. */
export type MutantResult =
  | { readonly ok: true; readonly srcDir: string; readonly files: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly problem: string };

/**
 * The solution's `src/` with one mutation applied, to be written to
 * `<solution>/.lab-kit/mutants/<name>/src`. Each text to find must occur exactly once, so
 * a gate whose code has moved on fails loudly instead of testing nothing.
 */
export function applyMutation(
  solutionDir: string,
  solutionFiles: ReadonlyMap<string, string>,
  mutation: Mutation,
): MutantResult {
  const refuse = (problem: string): MutantResult => ({ ok: false, problem });
  const file = toPosixPath(mutation.file).replace(/^\.\//, "");
  if (!file.startsWith("src/"))
    return refuse(`只能变异 src/ 下的文件，而 file 是 ${mutation.file}`);
  let text = solutionFiles.get(file);
  if (text === undefined) return refuse(`solution/${file} 不存在`);
  const edits = mutationEdits(mutation);
  for (const [index, edit] of edits.entries()) {
    const which = edits.length > 1 ? `第 ${index + 1} 处修改` : "要替换的文本";
    const count = text.split(edit.find).length - 1;
    if (count === 0) return refuse(`在 solution/${file} 中找不到${which}`);
    if (count > 1) return refuse(`${which}在 solution/${file} 中出现了 ${count} 次，应恰好一次`);
    text = text.replace(edit.find, () => edit.replace);
  }
  const srcDir = path.join(solutionDir, COPIES_DIR, "mutants", mutation.name, "src");
  return { ok: true, srcDir, files: new Map([...solutionFiles, [file, text]]) };
}

/** Every file under `<packageDir>/src`, keyed `src/…` with `/` separators. */
export async function readSourceTree(packageDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const entries = await glob("src/**", { cwd: packageDir, dot: true, followSymbolicLinks: false });
  for (const entry of entries.sort()) {
    files.set(entry, await readFile(path.join(packageDir, entry), "utf8"));
  }
  return files;
}

/** Replaces `srcDir`'s package folder (its parent) with `files` (keyed `src/…`). */
export async function writeSourceCopy(
  srcDir: string,
  files: ReadonlyMap<string, string>,
): Promise<void> {
  const root = path.dirname(srcDir);
  await rm(root, { recursive: true, force: true });
  for (const [file, content] of files) {
    const target = path.join(root, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}
