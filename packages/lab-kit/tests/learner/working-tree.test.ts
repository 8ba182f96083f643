import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { foldersWithChanges, listFiles } from "../../src/learner/working-tree.ts";
import { createFixtureRepo, type FixtureRepo, PARTLY_DONE_SOURCE } from "./fixture-repo.ts";

let repo: FixtureRepo;
let starters: string[];

beforeEach(async () => {
  repo = await createFixtureRepo([{ id: "01" }, { id: "02" }]);
  starters = ["01", "02"].map((id) => path.join(repo.labDir(id), "starter"));
});

afterEach(async () => {
  await repo.remove();
});

describe("foldersWithChanges", () => {
  it("sees no change in committed, untouched starters", async () => {
    const changes = await foldersWithChanges(repo.root, starters);
    expect([...(changes?.values() ?? [])]).toEqual([false, false]);
  });

  it("sees an edited file, in that starter only", async () => {
    await repo.write("labs/02-demo-sum/starter/src/index.ts", PARTLY_DONE_SOURCE);
    const changes = await foldersWithChanges(repo.root, starters);
    expect([...(changes?.values() ?? [])]).toEqual([false, true]);
  });

  it("sees a new file the learner created", async () => {
    await repo.write("labs/01-demo-sum/starter/src/notes.ts", "export {};\n");
    expect((await foldersWithChanges(repo.root, starters))?.get(starters[0] ?? "")).toBe(true);
  });

  it("ignores git-ignored files such as installed dependencies", async () => {
    const modules = path.join(starters[0] ?? "", "node_modules", "pkg");
    await mkdir(modules, { recursive: true });
    await writeFile(path.join(modules, "index.js"), "");
    expect((await foldersWithChanges(repo.root, starters))?.get(starters[0] ?? "")).toBe(false);
  });
});

describe("listFiles", () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "lab-kit-list-files-"));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function touch(file: string): Promise<void> {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), "x");
  }

  it("lists every file, nested and dot files too, sorted, with / separators", async () => {
    for (const file of ["src/b.ts", "src/deep/a.ts", ".env", "README.md"]) await touch(file);
    expect(await listFiles(root)).toEqual([".env", "README.md", "src/b.ts", "src/deep/a.ts"]);
  });

  it("skips installed and generated folders at any depth", async () => {
    await touch("src/index.ts");
    for (const folder of ["node_modules", ".turbo", "dist", "coverage", "src/node_modules"]) {
      await touch(`${folder}/x.js`);
    }
    expect(await listFiles(root)).toEqual(["src/index.ts"]);
  });

  it("has no files in a folder that does not exist", async () => {
    expect(await listFiles(path.join(root, "missing"))).toEqual([]);
  });

  it("neither lists nor follows a symbolic link, so nothing outside the folder is reported", async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), "lab-kit-outside-"));
    try {
      await writeFile(path.join(outside, "secret.ts"), "x");
      await touch("src/index.ts");
      await symlink(outside, path.join(root, "src", "linked"), "dir");
      await symlink(path.join(outside, "secret.ts"), path.join(root, "src", "file-link.ts"));
      expect(await listFiles(root)).toEqual(["src/index.ts"]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
