import { describe, expect, it } from "vitest";
import { checkExerciseRegions } from "../src/verify/region-check.ts";

const solution = [
  "export function f(): number {",
  "  // #region exercise",
  "  return 1;",
  "  // #endregion exercise",
  "}",
  "",
].join("\n");

const starter = [
  "export function f(): number {",
  "  // #region exercise",
  "  // TODO(lab-03): 返回 1。",
  "  return 0;",
  "  // #endregion exercise",
  "}",
  "",
].join("\n");

function files(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}

describe("checkExerciseRegions", () => {
  it("accepts files that differ only inside their regions, counting the regions", () => {
    const result = checkExerciseRegions(
      "03",
      files({ "src/index.ts": starter, "src/other.ts": "export {};\n" }),
      files({ "src/index.ts": solution, "src/other.ts": "export {};\n" }),
    );
    expect(result).toEqual({ ok: true, regions: 1 });
  });

  it("names a file that exists only in the solution", () => {
    const result = checkExerciseRegions(
      "03",
      files({ "src/index.ts": starter }),
      files({ "src/index.ts": solution, "src/extra.ts": "export {};\n" }),
    );
    expect(result).toEqual({ ok: false, problems: ["src/extra.ts 只在 solution 中存在"] });
  });

  it("names file and line of the first difference outside the regions", () => {
    const changed = starter.replace(
      "export function f(): number {",
      "export function g(): number {",
    );
    const result = checkExerciseRegions(
      "03",
      files({ "src/index.ts": changed }),
      files({ "src/index.ts": solution }),
    );
    expect(result).toMatchObject({
      ok: false,
      problems: [expect.stringContaining("src/index.ts 在练习区域之外不同：starter 第 1 行")],
    });
  });

  it("fails when starter and solution have a different number of regions", () => {
    const noRegion = "export function f(): number {\n  return 1;\n}\n";
    const result = checkExerciseRegions(
      "03",
      files({ "src/index.ts": starter }),
      files({ "src/index.ts": noRegion }),
    );
    expect(result).toMatchObject({
      ok: false,
      problems: [expect.stringContaining("starter 有 1 个练习区域，solution 有 0 个")],
    });
  });

  it("fails when a starter region lacks its TODO for this lab", () => {
    const result = checkExerciseRegions(
      "04",
      files({ "src/index.ts": starter }),
      files({ "src/index.ts": solution }),
    );
    expect(result).toMatchObject({
      ok: false,
      problems: [expect.stringContaining("缺少 // TODO(lab-04)")],
    });
  });

  it("reports every problem in every file, not only the first", () => {
    const changed = starter
      .replace("export function f(): number {", "export function g(): number {")
      .replace("}\n", "} // end\n");
    const result = checkExerciseRegions(
      "04",
      files({ "src/a.ts": changed, "src/b.ts": starter, "src/c.ts": "export {};\n" }),
      files({ "src/a.ts": solution, "src/b.ts": solution }),
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        "src/a.ts 在练习区域之外不同：starter 第 1 行，solution 第 1 行",
        "src/a.ts 在练习区域之外不同：starter 第 6 行，solution 第 5 行",
        "starter/src/a.ts 第 2 行的练习区域缺少 // TODO(lab-04) 说明",
        "starter/src/b.ts 第 2 行的练习区域缺少 // TODO(lab-04) 说明",
        "src/c.ts 只在 starter 中存在",
      ],
    });
  });

  it("fails when no file has a region at all", () => {
    const plain = "export {};\n";
    const result = checkExerciseRegions(
      "03",
      files({ "src/index.ts": plain }),
      files({ "src/index.ts": plain }),
    );
    expect(result.ok).toBe(false);
  });
});
