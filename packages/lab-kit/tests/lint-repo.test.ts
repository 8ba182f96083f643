import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lintRepository } from "../src/lint-repo.ts";

const run = promisify(execFile);
const REPO_BIOME = path.join(import.meta.dirname, "..", "..", "..", "biome.json");
const FORMATTED = "export function double(input: number): number {\n  return input * 2;\n}\n";
// The same answer as a learner might type it: correct, but not as Biome lays it out.
const UNFORMATTED = "export function double(input:number):number{ return input*2 }\n";

let root: string;
const starter = () => path.join(root, "labs", "01-sample", "starter", "src", "index.ts");
const solution = () => path.join(root, "labs", "01-sample", "solution", "src", "index.ts");
const git = (...args: string[]) =>
  run("git", ["-c", "user.name=f", "-c", "user.email=f@example.com", ...args], { cwd: root });

async function lint(): Promise<Record<string, boolean>> {
  const parts = await lintRepository(root, { stdio: "ignore" });
  return Object.fromEntries(parts.map((part) => [part.scope, part.ok]));
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "lab-kit-lint-repo-"));
  // The repository's own config, without the schema path that only resolves there.
  const config = (await readFile(REPO_BIOME, "utf8")).replace(/^\s*"\$schema".*\n/m, "");
  await writeFile(path.join(root, "biome.json"), config);
  for (const file of [starter(), solution()]) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, FORMATTED);
  }
  await git("init", "-q");
  await git("add", ".");
  await git("commit", "-qm", "fixture");
}, 60_000);

afterAll(() => rm(root, { recursive: true, force: true }));

describe("lintRepository", () => {
  it("passes when a learner's correct answer in the starter is not formatted", async () => {
    await writeFile(starter(), UNFORMATTED);
    try {
      expect(await lint()).toEqual({
        "working tree (starters excluded)": true,
        "committed starters (HEAD)": true,
      });
    } finally {
      await writeFile(starter(), FORMATTED);
    }
  }, 60_000);

  it("fails on an unformatted solution in the working tree", async () => {
    await writeFile(solution(), UNFORMATTED);
    try {
      expect((await lint())["working tree (starters excluded)"]).toBe(false);
    } finally {
      await writeFile(solution(), FORMATTED);
    }
  }, 60_000);

  it("fails on an unformatted starter once it is committed", async () => {
    await writeFile(starter(), UNFORMATTED);
    await git("commit", "-qam", "unformatted starter");
    try {
      expect(await lint()).toEqual({
        "working tree (starters excluded)": true,
        "committed starters (HEAD)": false,
      });
    } finally {
      await writeFile(starter(), FORMATTED);
      await git("commit", "-qam", "formatted again");
    }
  }, 60_000);

  it("applies the repository's lint rules to the committed starters, not only the formatter", async () => {
    await writeFile(
      starter(),
      'import { helper } from "../../../../packages/agent-core/src/index.ts";\n\nexport const value = helper;\n',
    );
    await git("commit", "-qam", "starter imports a path into another package");
    expect((await lint())["committed starters (HEAD)"]).toBe(false);
  }, 60_000);
});
