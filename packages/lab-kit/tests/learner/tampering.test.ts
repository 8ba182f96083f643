import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lookUpLab, type ResolvedLab } from "../../src/learner/lab-lookup.ts";
import {
  checkTestsIntegrity,
  checkTestsIntegrityOfLabs,
  describeIntegrity,
} from "../../src/learner/tampering.ts";
import { createFixtureRepo, type FixtureRepo, WEAKENED_TEST } from "./fixture-repo.ts";

let repo: FixtureRepo;
let lab: ResolvedLab;

beforeEach(async () => {
  repo = await createFixtureRepo([{ id: "01" }]);
  const found = await lookUpLab(repo.root, "01", { requireInstall: true });
  if (!found.ok) throw new Error(found.message);
  lab = found.lab;
});

afterEach(async () => {
  await repo.remove();
});

describe("checkTestsIntegrity", () => {
  it("finds committed tests intact and says nothing about them", async () => {
    const integrity = await checkTestsIntegrity(lab);
    expect(integrity).toEqual({ state: "intact" });
    expect(describeIntegrity(lab, integrity)).toBeUndefined();
  });

  it("reports an edited test file", async () => {
    await repo.write("labs/01-demo-sum/tests/lab.test.ts", WEAKENED_TEST);
    expect(await checkTestsIntegrity(lab)).toEqual({
      state: "changed",
      modified: ["lab.test.ts"],
      added: [],
      removed: [],
    });
  });

  it("reports a deleted test file", async () => {
    await rm(path.join(lab.testsDir, "lab.test.ts"));
    expect(await checkTestsIntegrity(lab)).toMatchObject({
      state: "changed",
      removed: ["lab.test.ts"],
    });
  });

  it("reports a test file the learner added", async () => {
    await repo.write("labs/01-demo-sum/tests/extra.test.ts", "");
    expect(await checkTestsIntegrity(lab)).toMatchObject({
      state: "changed",
      added: ["extra.test.ts"],
    });
  });

  it("tells the learner how to see and undo the change", async () => {
    await repo.write("labs/01-demo-sum/tests/lab.test.ts", WEAKENED_TEST);
    const notice = describeIntegrity(lab, await checkTestsIntegrity(lab));
    expect(notice).toContain("git diff -- labs/01-demo-sum/tests");
    expect(notice).toContain("git restore --source=HEAD -- labs/01-demo-sum/tests");
  });

  it("ignores a change of line endings only", async () => {
    const file = path.join(lab.testsDir, "lab.test.ts");
    await writeFile(file, (await readFile(file, "utf8")).replace(/\n/g, "\r\n"));
    expect(await checkTestsIntegrity(lab)).toEqual({ state: "intact" });
  });
});

describe("checkTestsIntegrityOfLabs", () => {
  it("finds for each lab, in order, what checkTestsIntegrity finds for it alone", async () => {
    const two = await createFixtureRepo([{ id: "01" }, { id: "02" }, { id: "03" }]);
    try {
      const labs: ResolvedLab[] = [];
      for (const id of ["01", "02", "03"]) {
        const found = await lookUpLab(two.root, id, { requireInstall: true });
        if (!found.ok) throw new Error(found.message);
        labs.push(found.lab);
      }
      await two.write("labs/02-demo-sum/tests/lab.test.ts", WEAKENED_TEST);
      await two.write("labs/03-demo-sum/tests/extra.test.ts", "export {};\n");
      const together = await checkTestsIntegrityOfLabs(two.root, labs);
      const alone = await Promise.all(labs.map(checkTestsIntegrity));
      expect(together).toEqual(alone);
      expect(together.map((integrity) => integrity.state)).toEqual([
        "intact",
        "changed",
        "changed",
      ]);
      expect(together[2]).toMatchObject({ added: ["extra.test.ts"], modified: [] });
    } finally {
      await two.remove();
    }
    // Builds and commits a three-lab repository: seconds on a busy machine; only a hang guard.
  }, 60_000);

  it("cannot vouch for any lab outside a repository", async () => {
    const outside = [{ testsDir: path.join(lab.testsDir, "..", "..", "nowhere", "tests") }];
    expect(await checkTestsIntegrityOfLabs(path.dirname(repo.root), outside)).toEqual([
      { state: "unknown" },
    ]);
  });
});
