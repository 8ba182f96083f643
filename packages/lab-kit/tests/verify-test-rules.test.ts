import { beforeAll, describe, expect, it } from "vitest";
import type { LabVerdict } from "../src/verify/check-line.ts";
import { buildVerifyRepo, type Edit, replace, verdictsOf, verifyAll } from "./verify-fixture.ts";

const TESTS = "tests/lab.test.ts";
const ADDS = 'it("adds every value", () => {';
const ZERO = '  it("returns zero for no values", () => {\n    expect(total([])).toBe(0);\n  });';

// Tests that pass only in the order they are written: a real shuffle must break them.
const ORDER_TESTS = `
let step = 0;
describe("order", () => {
  for (const expected of [1, 2, 3, 4]) {
    it(\`runs step \${expected}\`, () => {
      step += 1;
      expect(step, \`第 \${expected} 步\`).toBe(expected);
    });
  }
});
`;

/** Appends text to a file of the lab. */
function append(file: string, text: string): Edit {
  return { file, edit: (before) => `${before}${text}` };
}

let verdicts: LabVerdict[];
const failures = (id: string) => verdictsOf(verdicts).failures(id);

/** The lab's one failed check that starts with `prefix`, exact up to a trailing "另有 N 处". */
function expectOnlyFailure(id: string, message: string): void {
  const found = failures(id);
  expect(found, `lab ${id}: ${found.join(" | ")}`).toContainEqual(
    expect.stringMatching(new RegExp(`^${escapeRegExp(message)}(；另有 \\d+ 处问题)?$`)),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

beforeAll(async () => {
  const built = await buildVerifyRepo("verify-test-rules", [
    {
      folder: "10-order-dependent",
      edits: [append(TESTS, ORDER_TESTS)],
    },
    { folder: "11-skip-written", edits: [replace(TESTS, ADDS, ADDS.replace("it(", "it.skip("))] },
    {
      folder: "12-only-computed",
      edits: [replace(TESTS, 'it("prefixes a hash"', 'it["only"]("prefixes a hash"')],
    },
    {
      folder: "13-todo-computed",
      edits: [replace(TESTS, ZERO, `${ZERO}\n\n  it["todo"]("handles negative values");`)],
    },
    {
      folder: "14-skipped-at-runtime",
      edits: [
        replace(
          TESTS,
          ZERO,
          ZERO.replace("() => {", "(context) => {").replace(
            "    expect",
            '    context["skip"]();\n    expect',
          ),
        ),
      ],
    },
    {
      folder: "15-conditional-test",
      edits: [
        replace(
          TESTS,
          ZERO,
          `${ZERO}\n\n  if (total([1]) === 1) {\n    it("counts a single value", () => {\n      expect(total([1])).toBe(1);\n    });\n  }`,
        ),
      ],
    },
    {
      folder: "16-no-assertion",
      edits: [replace(TESTS, "    expect(total([])).toBe(0);", "    total([]);")],
    },
    {
      folder: "17-imports-solution",
      edits: [replace(TESTS, 'from "@lab";', 'from "../solution/src/index.ts";')],
    },
    {
      folder: "18-dynamic-import",
      edits: [
        replace(
          TESTS,
          ZERO,
          `${ZERO}\n\n  it("agrees with the starter", async () => {\n    const side = ["sol", "ution"].join("");\n    const other = await import(\`../\${side}/src/index.ts\`);\n    expect(other.total([2])).toBe(total([2]));\n  });`,
        ),
      ],
    },
    {
      folder: "19-duplicate-names",
      edits: [
        replace(
          TESTS,
          ZERO,
          `${ZERO}\n\n  it("adds every value", () => {\n    expect(total([4, 5])).toBe(9);\n  });`,
        ),
      ],
    },
    {
      folder: "20-spec-file",
      edits: [
        append(
          "tests/extra.spec.ts",
          'import { expect, it } from "vitest";\n\nit("never runs", () => {\n  expect(1).toBe(2);\n});\n',
        ),
      ],
    },
    {
      folder: "21-assert-in-code",
      edits: [
        replace(
          "starter/src/index.ts",
          "/** Adds every value. */",
          'import assert from "node:assert";\n\n/** Adds every value. */',
        ),
        replace(
          "solution/src/index.ts",
          "/** Adds every value. */",
          'import assert from "node:assert";\n\n/** Adds every value. */',
        ),
        replace("solution/src/index.ts", "  return sum;", "  assert.ok(sum >= 0);\n  return sum;"),
        replace(
          "starter/src/index.ts",
          "  void values;",
          '  assert.ok(values.length === 0, "还没有实现");',
        ),
      ],
    },
  ]);
  verdicts = await verifyAll(built.repo);
  return built.cleanup;
}, 600_000);

describe("verify:lesson rejects lab tests that cannot prove the lesson", () => {
  it("really shuffles: tests that depend on their order pass in order and fail shuffled", () => {
    const texts = verdictsOf(verdicts)
      .verdict("10")
      .checks.map((check) => check.text);
    expect(texts).toContain("解答通过全部 7 个测试");
    expect(failures("10")).toEqual([
      expect.stringMatching(
        /^解答乱序再跑（seed 7）未通过 \d 个测试："order > runs step \d"（断言失败：AssertionError: 第 \d 步: expected \d to be \d/,
      ),
    ]);
  });

  it("rejects a written .skip", () => {
    expectOnlyFailure(
      "11",
      "测试规则：tests/lab.test.ts 第 5 行使用了 .skip：实验测试不允许 skip、only、todo、fails",
    );
  });

  it("rejects .only however it is spelled, from the run itself", () => {
    expectOnlyFailure(
      "12",
      '测试规则：测试 "total > adds every value" 被跳过（.skip、.skipIf、.runIf，或同一文件里另有 .only）',
    );
  });

  it("rejects .todo however it is spelled", () => {
    expectOnlyFailure(
      "13",
      '测试规则：测试 "total > handles negative values" 是 .todo：没有内容，什么也证明不了',
    );
  });

  it("rejects a test that skips itself while running", () => {
    expectOnlyFailure(
      "14",
      '测试规则：解答：测试 "total > returns zero for no values" 没有运行（运行时被跳过）',
    );
  });

  it("rejects a run whose test count differs from the tests the files declare", () => {
    expectOnlyFailure("15", "测试规则：初始 starter：运行了 3 个测试，而测试文件里有 4 个");
  });

  it("rejects a test without a single assertion", () => {
    expectOnlyFailure(
      "16",
      '测试规则：测试 "total > returns zero for no values" 没有任何 expect 断言：它什么也证明不了',
    );
  });

  it("rejects a test that imports the solution instead of @lab", () => {
    expectOnlyFailure(
      "17",
      '测试规则：tests/lab.test.ts 导入了 "../solution/src/index.ts"：实验测试只能导入 vitest、@lab、@coding-agent/* 运行时包、node: 内置模块和 tests/ 里的文件',
    );
  });

  it("rejects such an import made dynamically, with a computed path", () => {
    expectOnlyFailure(
      "18",
      '测试规则：tests/lab.test.ts 导入了 "../solution/src/index.ts"：实验测试只能导入 vitest、@lab、@coding-agent/* 运行时包、node: 内置模块和 tests/ 里的文件',
    );
  });

  it("rejects two tests with one full name", () => {
    expectOnlyFailure(
      "19",
      '测试规则：测试全名 "total > adds every value" 出现了 2 次：按名字验证会含糊不清',
    );
  });

  it("rejects a test file the lab config never runs", () => {
    expectOnlyFailure(
      "20",
      "测试规则：tests/extra.spec.ts 不会被运行：实验只运行 tests/**/*.test.ts",
    );
  });

  it("does not count an AssertionError thrown by the code under test as a failed assertion", () => {
    expectOnlyFailure(
      "21",
      '初始 starter（HEAD 提交版本）："total > adds every value"（抛出错误：AssertionError: 还没有实现（由被测代码 starter/src/index.ts 抛出，不是测试里的断言）） 应以断言失败，而不是抛出错误',
    );
  });
});
