import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { runLabTargets } from "../src/run/runner.ts";
import { LOOP_TIMEOUT_PREFIX } from "../src/run/settings.ts";
import { copyFixture } from "./fixture-repo.ts";

it("fails the load of a file whose sources loop for ever at their top level with the loop guard's message, and still runs the other targets", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    await mkdir(path.join(labDir, "stuck", "src"), { recursive: true });
    await writeFile(
      path.join(labDir, "stuck", "src", "index.ts"),
      "for (;;) {\n  // never finishes loading\n}\nexport const add = () => 0;\n",
    );
    const [good, stuck] = await runLabTargets([
      { label: "good", labDir, packageDir: path.join(labDir, "good") },
      { label: "stuck", labDir, packageDir: path.join(labDir, "stuck") },
    ]);
    expect(good?.tests.filter((test) => test.state === "passed")).toHaveLength(4);
    expect(stuck?.tests).toEqual([]);
    expect(stuck?.loadErrors).toEqual([
      { file: "tests/lab.test.ts", message: expect.stringContaining(LOOP_TIMEOUT_PREFIX) },
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 60_000);

it("ends a run that a hang no loop guard reaches keeps from progressing, and reports its unfinished files as not run", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    await mkdir(path.join(labDir, "blocked", "src"), { recursive: true });
    // No loop to guard: the worker blocks in one call, as inside a dependency.
    await writeFile(
      path.join(labDir, "blocked", "src", "index.ts"),
      "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\nexport const add = () => 0;\n",
    );
    const started = Date.now();
    const [blocked] = await runLabTargets(
      [{ label: "blocked", labDir, packageDir: path.join(labDir, "blocked") }],
      { noProgressMs: 4_000 },
    );
    expect(blocked?.tests).toEqual([]);
    expect(blocked?.loadErrors).toEqual([
      { file: "tests/lab.test.ts", message: expect.stringContaining("没有运行完") },
    ]);
    expect(Date.now() - started).toBeLessThan(30_000);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 60_000);

it("names the test that was running when a hang inside it stopped the run, and not the ones that ended", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    await mkdir(path.join(labDir, "stalls", "src"), { recursive: true });
    await writeFile(
      path.join(labDir, "stalls", "src", "index.ts"),
      await readFile(path.join(labDir, "good", "src", "index.ts"), "utf8"),
    );
    // A test that waits for ever, with a timeout of its own longer than the backstop's wait:
    // only the backstop ends it.
    await writeFile(
      path.join(labDir, "tests", "stall.test.ts"),
      [
        'import { it } from "vitest";',
        'it("waits for a promise nothing settles", async () => {',
        "  await new Promise(() => {});",
        "}, 60_000);",
        "",
      ].join("\n"),
    );
    const [stalls] = await runLabTargets(
      [{ label: "stalls", labDir, packageDir: path.join(labDir, "stalls") }],
      { noProgressMs: 4_000 },
    );
    const stuck = stalls?.loadErrors.find((error) => error.file === "tests/stall.test.ts");
    expect(stuck?.message).toContain("没有运行完");
    expect(stuck?.message).toContain('当时还在运行的测试："waits for a promise nothing settles"');
    expect(stuck?.message).not.toContain("adds two numbers");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 60_000);
