import { describe, expect, it } from "vitest";
import type { LessonManifest } from "../src/manifest.ts";
import { checkHints, codeSyntax, sharedCode } from "../src/verify/hint-rules.ts";

const SOLUTION = new Map([
  [
    "src/in-doubt.ts",
    [
      "export function decide(files: File[], now: string[]) {",
      "  // #region exercise",
      '  if (files.every((file, index) => now[index] === file.after)) return "applied";',
      '  return "stale";',
      "  // #endregion exercise",
      "}",
      "",
    ].join("\n"),
  ],
]);
const TEST = "decide > answers applied when every file is as the edit leaves it";

function lesson(hints: LessonManifest["hints"]): LessonManifest {
  return {
    id: "23",
    slug: "resume",
    title: "恢复运行",
    week: 5,
    starter: { failing: [TEST] },
    mutations: [
      { name: "m", description: "d", file: "f", find: "a", replace: "b", breaks: [TEST] },
    ],
    hints,
    rubric: [{ criterion: "c", proof: [TEST] }],
    capstone: { package: "p", files: ["f"], tests: ["t"] },
  };
}

const DIRECTION = {
  text: "先想清楚：什么情况下能断定中断前已经写完？要“全都”对得上，而不是“有一个”。",
};
const MECHANISM = {
  test: TEST,
  text: "逐个比较每个文件现在的 hash 与它编辑之后应有的 hash，全部相等才算已生效。",
};

describe("checkHints", () => {
  it("passes a direction without a test, then a mechanism in words", () => {
    expect(checkHints(lesson([DIRECTION, MECHANISM]), SOLUTION)).toMatchObject({ ok: true });
  });

  it("fails hints that open on one test's mechanism", () => {
    const result = checkHints(lesson([MECHANISM, DIRECTION]), SOLUTION);
    expect(result.ok).toBe(false);
    expect(result.text).toContain("开头要有一条讲方向");
  });

  it("fails a hint that writes out the solution's code, naming the hint and the line", () => {
    const leaky = {
      test: TEST,
      text: "写 files.every((file, index) => now[index] === file.after) 就行。",
    };
    const result = checkHints(lesson([DIRECTION, leaky]), SOLUTION);
    expect(result.ok).toBe(false);
    expect(result.text).toContain("第 2 条提示写出了答案的代码");
  });

  // Hints of this kind were once in lessons 02, 03, 09 and 20: each is shorter than any
  // solution line it gives away, so only its syntax shows that it is code.
  it.each([
    [
      "the head of a statement",
      "把 if 链改成 switch (status)：completed 0、failed 1。",
      "switch (",
    ],
    ["a comparison", "maxAttempts 是总次数：attempt >= maxAttempts 时没有下一次了。", "t >= m"],
    ["an object literal", '其他类别返回 { retry: false, reason: "not_retryable" }。', "{ retry"],
    ["an arrow function", "用 new Promise((resolve, reject) => …) 把三者放在一起。", "=>"],
    ["a thrown error", "取不到时 throw new ScriptExhaustedError，带上调用序号。", "throw new"],
  ])("fails a hint that writes %s, however short", (_kind, text, code) => {
    const result = checkHints(lesson([DIRECTION, { test: TEST, text }]), SOLUTION);
    expect(result.ok).toBe(false);
    expect(result.text).toContain("第 2 条提示写出了代码「");
    expect(codeSyntax(text)).toContain(code);
  });

  it("lets a hint name a value or a field the answer uses", () => {
    const naming = {
      test: TEST,
      text: '这时答 "applied"；比较的是 file.after 与 now 里同一位置的 hash。',
    };
    expect(checkHints(lesson([DIRECTION, naming]), SOLUTION)).toMatchObject({ ok: true });
  });
});

describe("sharedCode", () => {
  it("ignores spacing when it compares", () => {
    expect(sharedCode("now [ index ] === file . after", "now[index]===file.after")).toBeDefined();
  });
});
