import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { findRepoRoot, readCommittedTree } from "./git.ts";

const execFileAsync = promisify(execFile);

/** The Biome CLI of the workspace's catalog version. */
const BIOME = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@biomejs/biome/package.json")),
  "bin",
  "biome",
);

/** A starter's files, which a learner edits: `labs/NN-slug/starter/...`. */
const STARTER_FILE = /^labs\/[^/]+\/starter\//;

/** One Biome run of {@link lintRepository}: what it covered and whether it passed. */
export interface LintPart {
  readonly scope: "working tree (starters excluded)" | "committed starters (HEAD)";
  readonly ok: boolean;
}

/**
 * The lint step of `pnpm test`: Biome over the working tree except the learners' starters,
 * then over every starter as committed (HEAD), so a learner's formatting in their own
 * starter never fails the repository's tests while the starters the course ships stay
 * Biome-clean. Outside a git repository, Biome checks the whole folder. Biome's output
 * goes to `stdio` (inherited by default).
 */
export async function lintRepository(
  repoRoot: string,
  options: { readonly stdio?: "inherit" | "ignore" } = {},
): Promise<LintPart[]> {
  const stdio = options.stdio ?? "inherit";
  const inRepository = (await findRepoRoot(repoRoot)) !== undefined;
  const files = inRepository ? await workingTreeFiles(repoRoot) : ["."];
  const parts: LintPart[] = [
    { scope: "working tree (starters excluded)", ok: await biome(repoRoot, files, stdio) },
  ];
  // Outside a repository nothing is committed: the one part is the whole folder.
  const committed = await readCommittedTree(path.join(repoRoot, "labs"));
  const starters = [...(committed ?? [])].filter(([file]) => STARTER_FILE.test(`labs/${file}`));
  if (starters.length > 0) {
    parts.push({
      scope: "committed starters (HEAD)",
      ok: await lintCommitted(repoRoot, starters, stdio),
    });
  }
  return parts;
}

/** Tracked and untracked-but-not-ignored files that exist, minus the starters. */
async function workingTreeFiles(repoRoot: string): Promise<string[]> {
  const { stdout } = await execFileAsync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  const listed = [...new Set(stdout.split("\0").filter((file) => file !== ""))];
  return listed.filter((file) => !STARTER_FILE.test(file) && existsSync(path.join(repoRoot, file)));
}

/**
 * Writes the committed starters and the repository's Biome config (version control off:
 * the copy is no repository) into a temp folder that mirrors the repository's paths, so
 * Biome reports `labs/NN-slug/starter/...` and path-based rules apply as in the repository.
 */
async function lintCommitted(
  repoRoot: string,
  starters: readonly (readonly [string, Buffer])[],
  stdio: "inherit" | "ignore",
): Promise<boolean> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), "lab-kit-lint-"));
  try {
    const config = JSON.parse(await readFile(path.join(repoRoot, "biome.json"), "utf8")) as {
      $schema?: string;
      vcs?: unknown;
    };
    delete config.$schema;
    delete config.vcs;
    await writeFile(path.join(tempDir, "biome.json"), JSON.stringify(config));
    for (const [file, content] of starters) {
      const target = path.join(tempDir, "labs", ...file.split("/"));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
    }
    return await biome(tempDir, ["labs"], stdio);
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

function biome(
  cwd: string,
  paths: readonly string[],
  stdio: "inherit" | "ignore",
): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [BIOME, "check", "--files-ignore-unknown=true", "--no-errors-on-unmatched", ...paths],
      { cwd, stdio },
    );
    child.on("exit", (code) => resolve(code === 0));
    child.on("error", () => resolve(false));
  });
}
