// `pnpm lessons` keeps each starter's last report and runs again only what changed.
// The runner is a recording fake here: these tests are about what is run, not how.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listLabs } from "../../src/labs.ts";
import { inspectLab, type ResolvedLab } from "../../src/learner/lab-lookup.ts";
import { starterReports } from "../../src/learner/report-cache.ts";
import type { RunTarget, TargetReport } from "../../src/run/targets.ts";
import { createFixtureRepo, type FixtureRepo, SOLUTION_SOURCE } from "./fixture-repo.ts";

let repo: FixtureRepo;
let labs: ResolvedLab[];
let runs: string[][];

beforeEach(async () => {
  repo = await createFixtureRepo([{ id: "01" }, { id: "02" }]);
  const inspections = await Promise.all(
    (await listLabs(repo.root)).map((location) => inspectLab(repo.root, location)),
  );
  labs = inspections.flatMap((inspection) => (inspection.kind === "ready" ? [inspection.lab] : []));
  runs = [];
});

afterEach(async () => {
  await repo.remove();
});

const targets = (): RunTarget[] =>
  labs.map((lab) => ({ label: `${lab.id}:starter`, labDir: lab.dir, packageDir: lab.starterDir }));

/** A run that records which labels it was asked for; `broken` labels fail to load. */
function fakeRun(broken: readonly string[] = []) {
  return async (asked: readonly RunTarget[]): Promise<TargetReport[]> => {
    runs.push(asked.map((target) => target.label));
    return asked.map((target) => ({
      label: target.label,
      tests: [{ name: "sum > adds all numbers", file: "lab.test.ts", state: "failed" as const }],
      loadErrors: broken.includes(target.label)
        ? [{ file: "lab.test.ts", message: "import timed out" }]
        : [],
    }));
  };
}

describe("starterReports", () => {
  it("runs every starter once, then none while nothing changed", async () => {
    const first = await starterReports(repo.root, labs, targets(), fakeRun());
    const second = await starterReports(repo.root, labs, targets(), fakeRun());
    expect(runs).toEqual([["01:starter", "02:starter"]]);
    expect(second).toEqual(first);
    expect(second.map((report) => report.label)).toEqual(["01:starter", "02:starter"]);
  });

  it("runs again only the lab whose starter changed", async () => {
    await starterReports(repo.root, labs, targets(), fakeRun());
    await repo.write("labs/02-demo-sum/starter/src/index.ts", SOLUTION_SOURCE);
    await starterReports(repo.root, labs, targets(), fakeRun());
    expect(runs).toEqual([["01:starter", "02:starter"], ["02:starter"]]);
  });

  it("runs a lab again when its tests or its manifest changed", async () => {
    await starterReports(repo.root, labs, targets(), fakeRun());
    await repo.write("labs/01-demo-sum/tests/extra.test.ts", "// a new test file\n");
    await starterReports(repo.root, labs, targets(), fakeRun());
    expect(runs.at(-1)).toEqual(["01:starter"]);
  });

  it("runs every lab again when a workspace package changed", async () => {
    await starterReports(repo.root, labs, targets(), fakeRun());
    await repo.write("packages/agent-core/src/index.ts", "export const changed = 1;\n");
    await starterReports(repo.root, labs, targets(), fakeRun());
    expect(runs.at(-1)).toEqual(["01:starter", "02:starter"]);
  });

  it("runs nothing again for what tools write into packages (reports, dist, node_modules)", async () => {
    await starterReports(repo.root, labs, targets(), fakeRun());
    await repo.write("packages/agent-core/reports/mutation/mutation.json", "{}\n");
    await repo.write("packages/agent-core/dist/index.js", "export {};\n");
    await starterReports(repo.root, labs, targets(), fakeRun());
    expect(runs).toEqual([["01:starter", "02:starter"]]);
  });

  it("never keeps a report with a load error: a busy machine must not stick", async () => {
    await starterReports(repo.root, labs, targets(), fakeRun(["01:starter"]));
    await starterReports(repo.root, labs, targets(), fakeRun());
    expect(runs).toEqual([["01:starter", "02:starter"], ["01:starter"]]);
  });

  it.each([
    ["not JSON", "{"],
    ["the wrong shape", JSON.stringify({ key: "x", report: { label: 1 } })],
    [
      "another key",
      JSON.stringify({ key: "x", report: { label: "01:starter", tests: [], loadErrors: [] } }),
    ],
  ])("runs a lab again when its cache file is %s", async (_, text) => {
    await starterReports(repo.root, labs, targets(), fakeRun());
    await writeFile(path.join(repo.root, ".lab-kit", "lessons-cache", "01-demo-sum.json"), text);
    const reports = await starterReports(repo.root, labs, targets(), fakeRun());
    expect(runs.at(-1)).toEqual(["01:starter"]);
    expect(reports[0]?.tests).toHaveLength(1);
  });
});
