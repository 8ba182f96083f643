// Package test files (verify's capstone tests) run in the lab targets' vitest process, each
// with its own package's vitest config.
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidRunTargetError } from "../src/errors.ts";
import { runLabAndPackageTests } from "../src/run/runner.ts";
import { copyFixture } from "./fixture-repo.ts";

let root: string;
let packageDir: string;

const test = (body: string) => `import { expect, it } from "vitest";\n\n${body}\n`;

beforeEach(async () => {
  const copy = await copyFixture("verify-repo");
  root = copy.root;
  packageDir = path.join(copy.dir, "packages", "capstone");
  await mkdir(path.join(packageDir, "tests"), { recursive: true });
  // The package's own config: a setup file and a timeout that only it sets.
  await writeFile(
    path.join(packageDir, "vitest.config.ts"),
    'export default { test: { include: ["tests/**/*.test.ts"], setupFiles: ["./setup.ts"], testTimeout: 4321, maxWorkers: 3 } };\n',
  );
  await writeFile(path.join(packageDir, "setup.ts"), "globalThis.fromSetup = 'package setup';\n");
  await writeFile(
    path.join(packageDir, "tests", "config.test.ts"),
    test(
      [
        'it("sees the package config", (context) => {',
        '  expect((globalThis as { fromSetup?: string }).fromSetup).toBe("package setup");',
        "  expect(context.task.timeout).toBe(4321);",
        "  // As under the package's own `vitest run`, whatever folder the runner runs in.",
        `  expect(process.cwd()).toBe(${JSON.stringify(packageDir)});`,
        "});",
        "",
        'it("fails on purpose", () => {',
        "  expect(1).toBe(2);",
        "});",
      ].join("\n"),
    ),
  );
  await writeFile(
    path.join(packageDir, "tests", "other.test.ts"),
    test(
      [
        // Slower than the lab's endless loop is found (2 s timeout, 0.5 s grace): still
        // running when that round is killed.
        'it("outlasts a killed round", async () => {',
        "  await new Promise((resolve) => setTimeout(resolve, 4_000));",
        "  expect(true).toBe(true);",
        "}, 20_000);",
      ].join("\n"),
    ),
  );
  await writeFile(path.join(packageDir, "tests", "broken.test.ts"), "export const x = ;\n");
});

afterEach(() => rm(root, { recursive: true, force: true }));

describe("runLabAndPackageTests", () => {
  it("runs exactly the files asked for, with their package's own config, and reports each test and load error", async () => {
    const files = ["config.test.ts", "broken.test.ts"].map((file) =>
      path.join(packageDir, "tests", file),
    );
    const { reports, packageFiles } = await runLabAndPackageTests(
      [],
      [{ label: "capstone", packageDir, files }],
    );
    expect(reports).toEqual([]);
    const byFile = new Map(packageFiles.map((entry) => [path.basename(entry.file), entry]));
    expect([...byFile.keys()].sort()).toEqual(["broken.test.ts", "config.test.ts"]);
    expect(byFile.get("config.test.ts")).toMatchObject({
      label: "capstone",
      tests: [
        { name: "sees the package config", state: "passed" },
        { name: "fails on purpose", state: "failed" },
      ],
      loadError: undefined,
    });
    const [passed, failed] = byFile.get("config.test.ts")?.tests ?? [];
    // A failed test says its first error's first line (what verify prints after the name).
    expect(failed?.error).toMatch(/^expected 1 to be 2/);
    expect(passed).not.toHaveProperty("error");
    expect(byFile.get("broken.test.ts")?.tests).toEqual([]);
    expect(byFile.get("broken.test.ts")?.loadError).toMatch(/\S/);
  }, 120_000);

  it("reports a package file beside a lab target whose endless loops fail its tests", async () => {
    const { dir: labDir, root: labRoot } = await copyFixture("runner-lab");
    await writeFile(
      path.join(labDir, "tests", "lab.test.ts"),
      [
        'import { expect, it } from "vitest";',
        'import { spin } from "@lab";',
        "",
        'it("stops spinning", () => {',
        "  expect(spin()).toBe(1);",
        "});",
        "",
        'it("stops spinning again", () => {',
        "  expect(spin()).toBe(1);",
        "});",
        "",
      ].join("\n"),
    );
    try {
      const file = path.join(packageDir, "tests", "other.test.ts");
      const { reports, packageFiles } = await runLabAndPackageTests(
        [{ label: "bad", labDir, packageDir: path.join(labDir, "bad") }],
        [{ label: "capstone", packageDir, files: [file] }],
      );
      for (const name of ["stops spinning", "stops spinning again"]) {
        expect(reports[0]?.tests.find((entry) => entry.name === name)?.failure?.kind, name).toBe(
          "timeout",
        );
      }
      expect(packageFiles.map((entry) => [entry.file, entry.tests])).toEqual([
        [file, [{ name: "outlasts a killed round", state: "passed" }]],
      ]);
    } finally {
      await rm(labRoot, { recursive: true, force: true });
    }
  }, 120_000);

  it("says why a file has no report when its worker died: vitest's error outside the tests", async () => {
    const dies = path.join(packageDir, "tests", "dies.test.ts");
    // The default pool (forks): the test kills its own worker process.
    await writeFile(
      dies,
      test('it("ends its worker", () => {\n  process.kill(process.pid, "SIGKILL");\n});'),
    );
    const config = path.join(packageDir, "tests", "config.test.ts");
    const { packageFiles } = await runLabAndPackageTests(
      [],
      [{ label: "capstone", packageDir, files: [dies, config] }],
    );
    const died = packageFiles.find((entry) => entry.file === dies);
    expect(died?.tests).toEqual([]);
    expect(died?.loadError).toMatch(
      /^没有运行完：vitest 在测试之外报错：.*Worker exited unexpectedly/,
    );
  }, 120_000);

  it("rejects a relative path before starting anything", async () => {
    await expect(
      runLabAndPackageTests([], [{ label: "x", packageDir, files: ["tests/config.test.ts"] }]),
    ).rejects.toBeInstanceOf(InvalidRunTargetError);
  });
});
