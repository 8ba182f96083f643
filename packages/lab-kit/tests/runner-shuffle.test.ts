import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { runLabTargets } from "../src/run/runner.ts";
import { copyFixture } from "./fixture-repo.ts";

const NAMES = ["a", "b", "c", "d", "e", "f", "g", "h"];

// Each test appends its name to a log beside the test file, so the order the tests really
// ran in is read back from outside vitest.
const ORDER_TEST = `import { appendFileSync } from "node:fs";
import { expect, it } from "vitest";

const log = new URL("./order.log", import.meta.url);
for (const name of ${JSON.stringify(NAMES)}) {
  it(name, () => {
    appendFileSync(log, \`\${name}\\n\`);
    expect(name).toHaveLength(1);
  });
}
`;

it("runs a shuffled target in an order set by its seed: two seeds, two orders", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    await rm(path.join(labDir, "tests", "lab.test.ts"));
    await writeFile(path.join(labDir, "tests", "order.test.ts"), ORDER_TEST);
    const log = path.join(labDir, "tests", "order.log");
    const orderWith = async (seed: number | undefined): Promise<string[]> => {
      await writeFile(log, "");
      const [report] = await runLabTargets([
        {
          label: "good",
          labDir,
          packageDir: path.join(labDir, "good"),
          ...(seed === undefined ? {} : { shuffleSeed: seed }),
        },
      ]);
      expect(report?.tests.filter((test) => test.state === "passed")).toHaveLength(NAMES.length);
      return (await readFile(log, "utf8")).split("\n").filter((line) => line !== "");
    };
    const inOrder = await orderWith(undefined);
    const first = await orderWith(1);
    const second = await orderWith(2);
    expect(inOrder).toEqual(NAMES);
    expect([...first].sort()).toEqual(NAMES);
    expect([...second].sort()).toEqual(NAMES);
    expect(first).not.toEqual(NAMES);
    expect(second).not.toEqual(first);
    // The same seed gives the same order: a failure reported with its seed can be replayed.
    expect(await orderWith(1)).toEqual(first);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 120_000);

it("shuffles one target and keeps the other in file order within the same run", async () => {
  const copies = await Promise.all([copyFixture("runner-lab"), copyFixture("runner-lab")]);
  try {
    const labs = copies.map((copy) => copy.dir);
    for (const labDir of labs) {
      await rm(path.join(labDir, "tests", "lab.test.ts"));
      await writeFile(path.join(labDir, "tests", "order.test.ts"), ORDER_TEST);
      await writeFile(path.join(labDir, "tests", "order.log"), "");
    }
    const [inOrderLab = "", shuffledLab = ""] = labs;
    const reports = await runLabTargets([
      { label: "in-order", labDir: inOrderLab, packageDir: path.join(inOrderLab, "good") },
      {
        label: "shuffled",
        labDir: shuffledLab,
        packageDir: path.join(shuffledLab, "good"),
        shuffleSeed: 1,
      },
    ]);
    for (const report of reports) {
      expect(
        report.tests.filter((test) => test.state === "passed"),
        report.label,
      ).toHaveLength(NAMES.length);
    }
    const order = async (labDir: string) =>
      (await readFile(path.join(labDir, "tests", "order.log"), "utf8"))
        .split("\n")
        .filter((line) => line !== "");
    expect(await order(inOrderLab)).toEqual(NAMES);
    const shuffled = await order(shuffledLab);
    expect([...shuffled].sort()).toEqual(NAMES);
    expect(shuffled).not.toEqual(NAMES);
  } finally {
    await Promise.all(copies.map((copy) => rm(copy.root, { recursive: true, force: true })));
  }
}, 120_000);

it("rejects a seed that is not an integer before starting anything", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    const target = { label: "good", labDir, packageDir: path.join(labDir, "good") };
    for (const shuffleSeed of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(runLabTargets([{ ...target, shuffleSeed }])).rejects.toThrow(
        /shuffleSeed must be an integer/,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
