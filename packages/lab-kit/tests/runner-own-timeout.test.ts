import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { runLabTargets } from "../src/run/runner.ts";
import { copyFixture } from "./fixture-repo.ts";

it("lets a test that set its own longer timeout run past the lab's timeout: only a loop that keeps the event loop from turning is ended", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    await writeFile(
      path.join(labDir, "tests", "lab.test.ts"),
      'import { expect, it } from "vitest";\n\nit("waits on a slow process", async () => {\n  await new Promise((resolve) => setTimeout(resolve, 3_000));\n  expect(1).toBe(1);\n}, 20_000);\n',
    );
    const [good] = await runLabTargets([
      { label: "good", labDir, packageDir: path.join(labDir, "good") },
    ]);
    expect(good?.tests).toEqual([
      expect.objectContaining({ name: "waits on a slow process", state: "passed" }),
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 120_000);
