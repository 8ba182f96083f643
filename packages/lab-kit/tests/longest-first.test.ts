import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { LongestFirst } from "../src/run/longest-first.ts";

/** A vitest whose results cache holds `durations` (keyed `project:file`, as vitest keys them). */
function vitestWith(durations: Record<string, number>): Vitest {
  return {
    config: { root: "/repo" },
    cache: { getFileTestResults: (key: string) => ({ duration: durations[key], failed: false }) },
  } as unknown as Vitest;
}

function spec(project: string, file: string): TestSpecification {
  return { project: { name: project }, moduleId: `/repo/${file}` } as TestSpecification;
}

describe("LongestFirst", () => {
  it("starts the files with the longest recorded durations first, across projects", async () => {
    const sequencer = new LongestFirst(
      vitestWith({
        "05:solution:labs/05/tests/lab.test.ts": 20,
        "05:gate:hang:labs/05/tests/lab.test.ts": 2_000,
        "package:core:packages/core/tests/loop.test.ts": 700,
      }),
    );
    const sorted = await sequencer.sort([
      spec("05:solution", "labs/05/tests/lab.test.ts"),
      spec("05:gate:hang", "labs/05/tests/lab.test.ts"),
      spec("package:core", "packages/core/tests/loop.test.ts"),
    ]);
    expect(sorted.map((entry) => entry.project.name)).toEqual([
      "05:gate:hang",
      "package:core",
      "05:solution",
    ]);
  });

  it("starts a file without a recorded duration before every recorded one", async () => {
    const sequencer = new LongestFirst(vitestWith({ "a:labs/a/tests/x.test.ts": 5_000 }));
    const sorted = await sequencer.sort([
      spec("a", "labs/a/tests/x.test.ts"),
      spec("b", "labs/b/tests/x.test.ts"),
    ]);
    expect(sorted.map((entry) => entry.project.name)).toEqual(["b", "a"]);
  });
});
