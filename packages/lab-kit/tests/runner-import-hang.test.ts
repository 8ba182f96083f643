import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { IMPORT_HANG_MESSAGE } from "../src/lab-test-settings.js";
import { runLabTargets } from "../src/runner.ts";
import { copyFixture } from "./fixture-repo.ts";

it("reports sources that hang while being imported as a load error by the import watchdog, and still runs the other targets", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    await mkdir(path.join(labDir, "stuck", "src"), { recursive: true });
    await writeFile(
      path.join(labDir, "stuck", "src", "index.ts"),
      "for (;;) {\n  // never finishes loading\n}\nexport const add = () => 0;\n",
    );
    const [good, stuck] = await runLabTargets(
      [
        { label: "good", labDir, packageDir: path.join(labDir, "good") },
        { label: "stuck", labDir, packageDir: path.join(labDir, "stuck") },
      ],
      // The idle limit is far beyond the test's own timeout: only the import watchdog can end this.
      { importTimeoutMs: 3_000, idleMs: 600_000 },
    );
    expect(good?.tests.filter((test) => test.state === "passed")).toHaveLength(4);
    expect(stuck?.tests).toEqual([]);
    expect(stuck?.loadErrors).toEqual([
      {
        file: "tests/lab.test.ts",
        message: IMPORT_HANG_MESSAGE,
      },
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 60_000);
