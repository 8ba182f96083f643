import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidRunTargetError } from "../src/errors.ts";
import { runLabTargets } from "../src/runner.ts";
import type { RunTarget, TargetReport } from "../src/runner-types.ts";
import { copyFixture } from "./fixture-repo.ts";

let root: string;
let labDir: string;

beforeAll(async () => {
  ({ root, dir: labDir } = await copyFixture("runner-lab"));
  await mkdir(path.join(labDir, "broken", "src"), { recursive: true });
  await writeFile(
    path.join(labDir, "broken", "src", "index.ts"),
    "export function add(a: number, b: number): number {\n  return a +;\n}\n",
  );
});

afterAll(() => rm(root, { recursive: true, force: true }));

/** A report without its label, to compare a target run alone with the same one grouped. */
function unlabelled({ label: _label, ...rest }: TargetReport) {
  return rest;
}

describe("runLabTargets with a worker group", () => {
  it("reports grouped targets exactly as it reports them run alone, with the lab's own file names", async () => {
    const kinds = ["good", "bad", "broken"];
    const alone: RunTarget[] = kinds.map((kind) => ({
      label: kind,
      labDir,
      packageDir: path.join(labDir, kind),
    }));
    const grouped: RunTarget[] = kinds.map((kind) => ({
      label: `grouped-${kind}`,
      labDir,
      packageDir: path.join(labDir, kind),
      workerGroup: "lab",
    }));
    const reports = await runLabTargets([...alone, ...grouped], { hangGraceMs: 1_000 });
    for (const kind of kinds) {
      const single = reports.find((report) => report.label === kind);
      const shared = reports.find((report) => report.label === `grouped-${kind}`);
      if (single === undefined || shared === undefined) throw new Error(`no report for ${kind}`);
      expect(unlabelled(shared), kind).toEqual(unlabelled(single));
    }
    // The reports prove something only if the three kinds differ as the fixture says.
    const bad = reports.find((report) => report.label === "grouped-bad");
    expect(bad?.tests.map((test) => [test.name, test.failure?.kind]).sort()).toEqual([
      ["add > adds two numbers", "assertion"],
      ["returns instead of throwing", "error"],
      ["settles", "timeout"],
      ["stops spinning", "timeout"],
    ]);
    const broken = reports.find((report) => report.label === "grouped-broken");
    expect(broken?.loadErrors.map((error) => error.file)).toEqual(["tests/lab.test.ts"]);
    expect(JSON.stringify(reports)).not.toContain(".lab-kit");
  }, 120_000);

  it("runs a group's files one after another in one worker, each with its own sources, timeout and clean timers", async () => {
    for (const name of ["a", "b", "c"]) {
      await mkdir(path.join(labDir, name, "src"), { recursive: true });
      await writeFile(
        path.join(labDir, name, "src", "index.ts"),
        `export const name = "${name}";\n`,
      );
    }
    await rm(path.join(labDir, "tests"), { recursive: true, force: true });
    await mkdir(path.join(labDir, "tests"));
    await writeFile(
      path.join(labDir, "tests", "lab.test.ts"),
      [
        'import { threadId } from "node:worker_threads";',
        'import { expect, it, vi } from "vitest";',
        'import { name } from "@lab";',
        "",
        'it("shows its sources and worker", () => {',
        '  expect([name, "in worker", threadId].join(" ")).toBe("shown");',
        "});",
        "",
        'it("waits 300 ms on a real timer", async () => {',
        "  await new Promise((resolve) => setTimeout(resolve, 300));",
        "  expect(name).toMatch(/^[abc]$/);",
        "});",
        "",
        'it("leaves fake timers on", () => {',
        "  vi.useFakeTimers();",
        '  expect(name).toBeTypeOf("string");',
        "});",
        "",
      ].join("\n"),
    );
    const member = (name: string, testTimeoutMs: number): RunTarget => ({
      label: name,
      labDir,
      packageDir: path.join(labDir, name),
      workerGroup: "g",
      testTimeoutMs,
    });
    const reports = await runLabTargets(
      [
        member("a", 2_000),
        member("b", 2_000),
        member("c", 100),
        { label: "alone", labDir, packageDir: path.join(labDir, "a") },
      ],
      { maxWorkers: 1 },
    );
    const shown = (label: string) => {
      const report = reports.find((entry) => entry.label === label);
      const message =
        report?.tests.find((test) => test.name === "shows its sources and worker")?.failure
          ?.message ?? "";
      return /'(\w) in worker (\d+)'/.exec(message)?.slice(1) ?? [];
    };
    const [a, b, c, alone] = [shown("a"), shown("b"), shown("c"), shown("alone")];
    expect([a[0], b[0], c[0], alone[0]]).toEqual(["a", "b", "c", "a"]);
    expect(b[1]).toBe(a[1]);
    expect(c[1]).toBe(a[1]);
    expect(alone[1]).not.toBe(a[1]);
    const waited = (label: string) =>
      reports
        .find((entry) => entry.label === label)
        ?.tests.find((test) => test.name === "waits 300 ms on a real timer");
    // Whichever file ran first left fake timers on: the next one still waits on real ones.
    expect(waited("a")?.state).toBe("passed");
    expect(waited("b")?.state).toBe("passed");
    expect(waited("c")?.failure?.kind).toBe("timeout");
  }, 120_000);

  it("rejects a group whose members would share sources, before starting anything", async () => {
    const target = (label: string, srcDir?: string): RunTarget => ({
      label,
      labDir,
      packageDir: path.join(labDir, "good"),
      workerGroup: "g",
      ...(srcDir === undefined ? {} : { srcDir }),
    });
    await expect(
      runLabTargets([target("one"), target("two", path.join(labDir, "good", "src"))]),
    ).rejects.toThrow(
      new InvalidRunTargetError(
        `targets one and two of worker group g share srcDir ${path.join(labDir, "good", "src")}`,
      ),
    );
    await expect(
      runLabTargets([target("group:g", path.join(labDir, "bad", "src")), target("x")]),
    ).rejects.toBeInstanceOf(InvalidRunTargetError);
    await expect(runLabTargets([{ ...target("x"), workerGroup: "" }])).rejects.toBeInstanceOf(
      InvalidRunTargetError,
    );
  });
});
