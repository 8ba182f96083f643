import { beforeAll, describe, expect, it } from "vitest";
import type { LabVerdict } from "../src/verify/check-line.ts";
import { formatVerdict } from "../src/verify/check-line.ts";
import { runVerifyCli } from "../src/verify/verify-cli.ts";
import {
  buildVerifyRepo,
  type Edit,
  replace,
  type Variant,
  verdictsOf,
  verifyAll,
} from "./verify-fixture.ts";

let repo: string;
let verdicts: LabVerdict[];
const verdict = (id: string) => verdictsOf(verdicts).verdict(id);
const failures = (id: string) => verdictsOf(verdicts).failures(id);

const SOLVED_LATER: Variant["after"] = [
  {
    file: "starter/src/index.ts",
    edit: (text) =>
      text.replace(
        /\/\/ TODO\(lab-07\)[^\n]*\n\s*void values;\n\s*return 0;/,
        "let sum = 0;\n  for (const value of values) sum += value;\n  return sum;",
      ),
  },
];

const VARIANTS: Variant[] = [
  {
    folder: "02-passes-declared",
    edits: [
      replace(
        "lesson.json",
        '"failing": ["total > adds every value"]',
        '"failing": ["total > adds every value", "label > prefixes a hash"]',
      ),
    ],
  },
  {
    folder: "03-syntax-error",
    edits: [replace("starter/src/index.ts", "void values;", "void values +;")],
  },
  {
    folder: "04-outside-region",
    edits: [
      replace(
        "starter/src/index.ts",
        "/** A name with a hash in front. */",
        "/** A name, hashed. */",
      ),
    ],
  },
  {
    folder: "05-missing-text",
    edits: [
      replace(
        "lesson.json",
        '"find": "for (const value of values)',
        '"find": "for (const item of values)',
      ),
    ],
  },
  {
    folder: "06-breaks-nothing",
    edits: [
      replace(
        "lesson.json",
        '"find": "for (const value of values) sum += value;",\n      "replace": "for (const value of values.slice(1)) sum += value;"',
        '"find": "let sum = 0;",\n      "replace": "let sum = 0; // same"',
      ),
    ],
  },
  { folder: "07-learner-done", after: SOLVED_LATER },
  {
    folder: "08-unknown-capstone-proof",
    edits: [
      replace("lesson.json", '"capstone:adds every value"', '"capstone:adds nothing"'),
      replace("README.md", "`capstone:adds every value`", "`capstone:adds nothing`"),
    ],
  },
  {
    folder: "09-tests-tampered",
    after: [{ file: "tests/lab.test.ts", edit: (text) => `${text}// weakened\n` }],
  },
  { folder: "10-readme-output", edits: [withStarterBlock("1 failed | 2 passed (3)")] },
  { folder: "11-readme-drift", edits: [withStarterBlock("2 failed | 1 passed (3)")] },
];

/** The README with a starter-test output block whose Tests line says `counts`. */
function withStarterBlock(counts: string): Edit {
  const block = [
    "## 运行与验证",
    "",
    "<!-- output: starter-test -->",
    "```text",
    " FAIL  ../tests/lab.test.ts > total > adds every value",
    `      Tests  ${counts}`,
    "```",
    "",
  ].join("\n");
  return { file: "README.md", edit: (text) => `${text}\n${block}` };
}

beforeAll(async () => {
  const built = await buildVerifyRepo("verify-lessons", VARIANTS);
  repo = built.repo;
  verdicts = await verifyAll(repo);
  return built.cleanup;
}, 600_000);

describe("verifyLessons", () => {
  it("finds a sound lab sound, one line per check", () => {
    expect(failures("01")).toEqual([]);
    expect(verdict("01").checks.map((check) => check.text)).toEqual([
      "清单有效（lesson.json）",
      "测试规则：3 个测试都有断言、只导入允许的模块，并在每个对象上全部运行",
      "解答通过全部 3 个测试",
      "解答乱序再跑（seed 7）通过全部 3 个测试",
      "初始 starter（HEAD 提交版本）恰好在声明的 1 个测试上以断言失败，其余 2 个通过",
      "starter 与 solution 只在 1 个练习区域内不同",
      "类型检查：初始 starter 与解答都没有类型错误",
      "变异门 skip-first（漏掉第一个数）：声明的 1 个测试全部断言失败",
      "总项目测试通过：packages/capstone/tests/sum.test.ts（1 个测试）",
      "提示与 Rubric 引用的测试和变异门都存在，提示都挂在 starter 失败的测试上",
      "README 验收 Rubric 与 lesson.json 的 rubric 一致",
      "starter 的注释与 README 的前几节都没有写出答案的代码",
      "提示先讲方向、再讲机制，没有一条写出答案的代码",
      "README 常见失败：0 条症状由变异门的真实失败证实",
      "README 的 0 个输出块与真实运行一致",
    ]);
  });

  it("checks a README's starter-test block against the committed starter's run", () => {
    expect(failures("10")).toEqual([]);
    expect(verdict("10").checks.at(-1)?.text).toBe("README 的 1 个输出块与真实运行一致");
  });

  it("fails a README's starter-test block that drifted from the run, saying what the run said", () => {
    expect(failures("11")).toEqual([
      expect.stringContaining(
        "写着 Tests 2 failed | 1 passed (3)，真实运行是 1 failed | 2 passed (3)",
      ),
    ]);
  });

  it("fails a starter that passes one of its declared failing tests, naming the test", () => {
    expect(failures("02")).toEqual([
      expect.stringContaining('通过了声明应失败的测试 "label > prefixes a hash"'),
    ]);
  });

  it("fails a starter with a syntax error as a load error, naming the test file", () => {
    const problems = failures("03");
    expect(problems.some((text) => text.includes("无法加载 tests/lab.test.ts（加载错误"))).toBe(
      true,
    );
  });

  it("fails a starter that differs outside the exercise regions, naming file and line", () => {
    expect(failures("04")).toEqual([
      expect.stringContaining("src/index.ts 在练习区域之外不同：starter 第 10 行"),
    ]);
  });

  it("fails a mutation whose text is missing, naming the file", () => {
    expect(failures("05")).toEqual([
      expect.stringContaining(
        "变异门 skip-first（漏掉第一个数）：在 solution/src/index.ts 中找不到要替换的文本",
      ),
    ]);
  });

  it("fails a mutation that breaks none of its tests, naming the test still passing", () => {
    expect(failures("06")).toEqual([
      expect.stringContaining(
        '变异门 skip-first（漏掉第一个数）：测试 "total > adds every value" 仍然通过',
      ),
    ]);
  });

  it("keeps a lesson sound when the learner completes the starter, and says it is complete", () => {
    expect(failures("07")).toEqual([]);
    expect(verdict("07").learner.join("\n")).toContain("本课已完成");
  });

  it("accepts a rubric proof naming a capstone test and fails one naming no such test", () => {
    expect(failures("01")).toEqual([]);
    expect(failures("08")).toEqual([
      expect.stringContaining('rubric.1.proof 指向不存在的测试或变异门 "capstone:adds nothing"'),
    ]);
  });

  it("says first, before any check, that the lab's tests differ from HEAD, with the restore command", () => {
    expect(verdict("09").notice).toEqual([
      "注意：labs/09-tests-tampered/tests/ 与提交的版本不同（已修改 lab.test.ts）。",
      "  测试被改动后，「通过」不再能证明你的代码正确。查看改动：git diff -- labs/09-tests-tampered/tests",
      "  恢复原测试：git restore --source=HEAD -- labs/09-tests-tampered/tests",
      "  以下检查用的是改动后的测试：若失败，先恢复测试再看结论。",
    ]);
    const lines = formatVerdict(verdict("09")).split("\n");
    expect(lines[1]).toContain("注意：labs/09-tests-tampered/tests/ 与提交的版本不同");
    expect(verdict("01").notice).toEqual([]);
  });

  it("points an untouched starter at lesson hint, without quoting a hint a README would show", () => {
    const learner = verdict("01").learner.join("\n");
    expect(learner).toContain("提示：需要时运行 pnpm lesson hint 01，一次给一条");
    expect(learner).not.toContain("循环里要把每个数加到 sum 上。");
  });
});

describe("runVerifyCli", () => {
  it("exits 2 for an unknown lesson and lists the lessons that exist", async () => {
    let err = "";
    const code = await runVerifyCli(repo, ["99"], {
      out: () => undefined,
      err: (text) => (err += text),
    });
    expect(code).toBe(2);
    expect(err).toContain("01  sound");
    expect(err).toContain("07  learner-done");
  });

  it("exits 1 when a check fails and accepts a literal -- before the lesson", async () => {
    let out = "";
    const code = await runVerifyCli(repo, ["--", "04", "--seed", "3"], {
      out: (text) => (out += text),
      err: () => undefined,
    });
    expect(code).toBe(1);
    expect(out).toContain("第 04 课");
  }, 300_000);
});
