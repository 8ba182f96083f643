import { describe, expect, it } from "vitest";
import { chooseNextHint, currentHint, hintKey } from "../../src/learner/hints.ts";
import type { ResolvedLab } from "../../src/learner/lab-lookup.ts";
import { editsOutsideRegions } from "../../src/learner/outside-edits.ts";
import { colorsFor } from "../../src/learner/terminal.ts";
import { watchHintLines } from "../../src/learner/watch-reporter.ts";
import type { LessonManifest } from "../../src/manifest.ts";
import type { TestOutcome } from "../../src/run/targets.ts";
import { FIRST_TEST, HINTS, PASSING_TEST, SECOND_TEST } from "./fixture-repo.ts";

const manifest: LessonManifest = {
  id: "01",
  slug: "demo-sum",
  title: "求和练习",
  week: 1,
  starter: { failing: [FIRST_TEST, SECOND_TEST] },
  mutations: [
    {
      name: "m",
      description: "d",
      file: "src/index.ts",
      find: "a",
      replace: "b",
      breaks: [FIRST_TEST],
    },
  ],
  hints: HINTS,
  rubric: [{ criterion: "c", proof: [FIRST_TEST] }],
  capstone: { package: "p", files: ["f"], tests: ["t"] },
};
const lab: ResolvedLab = {
  id: "01",
  slug: "demo-sum",
  name: "labs/01-demo-sum",
  dir: "/lab",
  starterDir: "/lab/starter",
  solutionDir: "/lab/solution",
  testsDir: "/lab/tests",
  manifest,
};
const plain = colorsFor({ isTTY: false }, {});

function outcome(name: string, state: TestOutcome["state"]): TestOutcome {
  return {
    name,
    file: "tests/lab.test.ts",
    state,
    ...(state === "failed" ? { failure: { kind: "assertion" as const, message: "boom" } } : {}),
  };
}

const untouched = [
  outcome(PASSING_TEST, "passed"),
  outcome(FIRST_TEST, "failed"),
  outcome(SECOND_TEST, "failed"),
];
const keyOf = (index: number) => {
  const hint = HINTS[index];
  if (hint === undefined) throw new Error(`no hint ${index}`);
  return hintKey(hint);
};

describe("chooseNextHint", () => {
  it("starts with the first hint that applies to the first failing test", () => {
    expect(chooseNextHint(manifest, untouched, new Set())).toMatchObject({
      kind: "next",
      hint: HINTS[0],
      position: 1,
      total: 3,
    });
  });

  it("skips hints already shown", () => {
    const shown = new Set([keyOf(0), keyOf(1)]);
    expect(chooseNextHint(manifest, untouched, shown)).toMatchObject({
      hint: HINTS[2],
      position: 3,
    });
  });

  it("never offers a hint written for another test", () => {
    const shown = new Set([keyOf(0), keyOf(1), keyOf(2)]);
    expect(chooseNextHint(manifest, untouched, shown)).toMatchObject({
      kind: "exhausted",
      hint: HINTS[2],
    });
  });

  it("says the failing test is outside the exercise when the lesson does not expect it to fail", () => {
    const broken = [outcome(PASSING_TEST, "failed"), outcome(FIRST_TEST, "failed")];
    const lesson = { ...manifest, hints: HINTS.filter((hint) => hint.test !== undefined) };
    expect(chooseNextHint(lesson, broken, new Set())).toMatchObject({
      kind: "no_hint",
      isExercise: false,
    });
  });

  it("takes the first failing test of the first file by name, whatever order files finished in", () => {
    const later = { ...outcome(SECOND_TEST, "failed"), file: "tests/b.test.ts" };
    const earlier = { ...outcome(FIRST_TEST, "failed"), file: "tests/a.test.ts" };
    expect(chooseNextHint(manifest, [later, earlier], new Set())).toMatchObject({
      test: { name: FIRST_TEST },
    });
  });

  it("needs no hint when nothing fails", () => {
    expect(chooseNextHint(manifest, [outcome(PASSING_TEST, "passed")], new Set())).toEqual({
      kind: "all_passing",
    });
  });

  it("treats an edited hint text as a new hint", () => {
    const edited = { ...HINTS[0], text: `${HINTS[0]?.text}（修订）` };
    expect(hintKey(edited)).not.toBe(keyOf(0));
  });
});

describe("currentHint (under a watch run)", () => {
  it("keeps the most detailed hint already revealed, without revealing another", () => {
    const shown = new Set([keyOf(0), keyOf(1)]);
    expect(currentHint(manifest, untouched, shown)).toMatchObject({ hint: HINTS[1], position: 2 });
  });

  it("shows the first hint when none was revealed", () => {
    expect(currentHint(manifest, untouched, new Set())).toMatchObject({
      hint: HINTS[0],
      position: 1,
    });
  });
});

describe("watchHintLines", () => {
  it("prints the first failing test and its hint, pointing at lesson hint for more", () => {
    expect(watchHintLines(lab, { tests: untouched, loadErrors: [] }, new Set(), plain)).toEqual([
      `第一个失败的测试：${FIRST_TEST}`,
      `提示 1/3：${HINTS[0]?.text}（下一条：pnpm lesson hint 01）`,
    ]);
  });

  it("asks to fix a load error before anything else", () => {
    const run = { tests: [], loadErrors: [{ file: "tests/lab.test.ts", message: "SyntaxError" }] };
    expect(watchHintLines(lab, run, new Set(), plain)[0]).toContain(
      "测试文件无法加载（tests/lab.test.ts）",
    );
  });

  it("congratulates when every test passes", () => {
    const run = { tests: [outcome(PASSING_TEST, "passed")], loadErrors: [] };
    expect(watchHintLines(lab, run, new Set(), plain)).toEqual([
      "第 01 课的测试全部通过。运行 pnpm lessons 看下一课。",
    ]);
  });
});

describe("chooseNextHint for a test the pristine starter passed", () => {
  const broken = [outcome(PASSING_TEST, "failed"), outcome(FIRST_TEST, "failed")];
  const edits = [{ file: "src/index.ts", kind: "lines" as const, from: 2, to: 2 }];

  it("blames the edits outside the regions when there are some", () => {
    expect(chooseNextHint(manifest, broken, new Set(), edits)).toMatchObject({
      kind: "outside_edit",
      edits,
    });
  });

  it("blames the learner's region code, not an outside edit, when nothing outside changed", () => {
    const lesson = { ...manifest, hints: HINTS.filter((hint) => hint.test !== undefined) };
    expect(chooseNextHint(lesson, broken, new Set(), [])).toMatchObject({
      kind: "no_hint",
      isExercise: false,
      regression: { where: "inside" },
    });
  });

  it("still gives the test's own hints when nothing outside changed", () => {
    const lesson = { ...manifest, hints: [{ test: PASSING_TEST, text: "问候语要带上名字。" }] };
    expect(chooseNextHint(lesson, broken, new Set(), [])).toMatchObject({
      kind: "next",
      hint: { text: "问候语要带上名字。" },
      regression: { where: "inside" },
    });
  });

  it("says what the test checks and which of the lesson's mistakes break it", () => {
    const lesson: LessonManifest = {
      ...manifest,
      hints: HINTS.filter((hint) => hint.test !== undefined),
      rubric: [{ criterion: "问候带名字", proof: [PASSING_TEST] }],
      mutations: [
        { ...manifest.mutations[0], breaks: [PASSING_TEST] } as LessonManifest["mutations"][number],
      ],
    };
    expect(chooseNextHint(lesson, broken, new Set(), [])).toMatchObject({
      intent: { checks: ["问候带名字"], mistakes: ["d"] },
    });
  });

  it("gives an exercise test its hints whatever was edited outside the regions", () => {
    expect(chooseNextHint(manifest, untouched, new Set(), edits)).toMatchObject({
      kind: "next",
      hint: HINTS[0],
    });
  });
});

describe("editsOutsideRegions", () => {
  const pristine = "a\n// #region exercise\nTODO\n// #endregion exercise\nb\nc\n";

  it("finds nothing when only the region changed, however much", () => {
    const mine = "a\n// #region exercise\nx\ny\nz\n// #endregion exercise\nb\nc\n";
    expect(editsOutsideRegions("f.ts", mine, pristine)).toEqual([]);
  });

  it("names the changed lines after a region by their numbers in the learner's file", () => {
    const mine = "a\n// #region exercise\nx\ny\n// #endregion exercise\nb\nC\n";
    expect(editsOutsideRegions("f.ts", mine, pristine)).toEqual([
      { file: "f.ts", kind: "lines", from: 7, to: 7 },
    ]);
  });

  it("ignores trailing spaces", () => {
    expect(editsOutsideRegions("f.ts", pristine.replace("b\n", "b  \n"), pristine)).toEqual([]);
  });

  it("reports moved or removed region markers", () => {
    const mine = pristine.replace("// #endregion exercise\n", "");
    expect(editsOutsideRegions("f.ts", mine, pristine)).toEqual([
      { file: "f.ts", kind: "markers" },
    ]);
  });

  it("reports a deleted line", () => {
    expect(editsOutsideRegions("f.ts", pristine.replace("a\n", ""), pristine)).toEqual([
      { file: "f.ts", kind: "lines", from: 1, to: 1 },
    ]);
  });
});
