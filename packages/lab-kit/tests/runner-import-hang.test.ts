import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { runLabTargets } from "../src/runner.ts";
import { copyFixture } from "./fixture-repo.ts";

it("reports sources that hang while being imported as a load error, and still runs the other targets", async () => {
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
      { idleMs: 5_000 },
    );
    expect(good?.tests.filter((test) => test.state === "passed")).toHaveLength(4);
    expect(stuck?.tests).toEqual([]);
    expect(stuck?.loadErrors.map((error) => error.file)).toEqual(["tests/lab.test.ts"]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 60_000);
