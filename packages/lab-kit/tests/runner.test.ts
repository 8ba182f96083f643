import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { InvalidRunTargetError } from "../src/errors.ts";
import { runLabTargets } from "../src/run/runner.ts";
import type { TargetReport, TestOutcome } from "../src/run/targets.ts";
import { copyFixture } from "./fixture-repo.ts";

let labDir: string;
let reports: TargetReport[];

function report(label: string): TargetReport {
  const found = reports.find((entry) => entry.label === label);
  if (found === undefined) throw new Error(`no report for ${label}`);
  return found;
}

function outcome(label: string, name: string): TestOutcome | undefined {
  return report(label).tests.find((test) => test.name === name);
}

beforeAll(async () => {
  const { root, dir } = await copyFixture("runner-lab");
  labDir = dir;
  await mkdir(path.join(labDir, "broken", "src"), { recursive: true });
  await writeFile(
    path.join(labDir, "broken", "src", "index.ts"),
    "export function add(a: number, b: number): number {\n  return a +;\n}\n",
  );
  reports = await runLabTargets([
    { label: "good", labDir, packageDir: path.join(labDir, "good"), shuffleSeed: 42 },
    { label: "bad", labDir, packageDir: path.join(labDir, "bad") },
    { label: "broken", labDir, packageDir: path.join(labDir, "broken") },
    {
      label: "bad-as-good",
      labDir,
      packageDir: path.join(labDir, "bad"),
      srcDir: path.join(labDir, "good", "src"),
    },
  ]);
  return () => rm(root, { recursive: true, force: true });
}, 60_000);

describe("runLabTargets", () => {
  it("returns one report per target, in the order given", () => {
    expect(reports.map((entry) => entry.label)).toEqual(["good", "bad", "broken", "bad-as-good"]);
  });

  it("names each test by its describe titles and title joined by ' > '", () => {
    expect(
      report("good")
        .tests.map((test) => test.name)
        .sort(),
    ).toEqual([
      "add > adds two numbers",
      "returns instead of throwing",
      "settles",
      "stops spinning",
    ]);
  });

  it("reports every test of correct sources as passed, also in shuffled order", () => {
    expect(report("good").tests.every((test) => test.state === "passed")).toBe(true);
    expect(report("good").loadErrors).toEqual([]);
  });

  it("classifies a wrong value as an assertion failure", () => {
    expect(outcome("bad", "add > adds two numbers")?.failure?.kind).toBe("assertion");
  });

  it("classifies a thrown error as an error, keeping its class and message", () => {
    const failure = outcome("bad", "returns instead of throwing")?.failure;
    expect(failure?.kind).toBe("error");
    expect(failure?.message).toContain("TypeError: boom");
  });

  it("classifies a promise that never settles as a timeout", () => {
    expect(outcome("bad", "settles")?.failure?.kind).toBe("timeout");
  });

  it("turns a synchronous endless loop into a timeout instead of hanging", () => {
    expect(outcome("bad", "stops spinning")).toMatchObject({
      state: "failed",
      failure: { kind: "timeout" },
    });
  });

  it("reports a file that cannot be loaded as a load error with no tests", () => {
    const broken = report("broken");
    expect(broken.tests).toEqual([]);
    expect(broken.loadErrors).toHaveLength(1);
    expect(broken.loadErrors[0]?.file).toBe("tests/lab.test.ts");
  });

  it("binds @lab to srcDir when a target gives one", () => {
    expect(report("bad-as-good").tests.every((test) => test.state === "passed")).toBe(true);
  });

  it("throws InvalidRunTargetError when two targets share a label", async () => {
    const target = { label: "same", labDir, packageDir: path.join(labDir, "good") };
    await expect(runLabTargets([target, target])).rejects.toBeInstanceOf(InvalidRunTargetError);
  });
});
