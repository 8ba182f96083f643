import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { foldersWithChanges } from "../../src/learner/index.ts";
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
