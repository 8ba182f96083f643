/**
 * The files of a new lab, as text. Starter and solution carry only what pnpm and TypeScript
 * cannot take from the root or lab-kit (package.json, a one-line tsconfig.json, src/), as
 * every existing lab does; the README follows the lesson outline; the code is one small,
 * sound exercise to replace with the lesson's.
 */

export interface LessonIdentity {
  readonly id: string;
  readonly slug: string;
  readonly title: string;
  readonly week: number;
}

const LINE_WIDTH = 100;

/**
 * JSON laid out the way the repository's formatter (Biome) lays it out: objects expanded,
 * arrays of plain values on one line when they fit, so a new lab passes `pnpm lint` as is.
 * @param prefix characters before the value on its line (indent, key), for the width check
 */
function layout(value: unknown, indent = "", prefix = indent.length): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const plain = value.every((item) => item === null || typeof item !== "object");
    const oneLine = `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
    // +1 for the comma that may follow
    if (plain && prefix + oneLine.length + 1 <= LINE_WIDTH) return oneLine;
    return `[\n${value.map((item) => inner + layout(item, inner)).join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([key, item]) => {
      const head = `${inner}${JSON.stringify(key)}: `;
      return `${head}${layout(item, inner, head.length)}`;
    });
    return entries.length === 0 ? "{}" : `{\n${entries.join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/**
 * The learner's commands, delegated to the root's scripts so they also work inside
 * starter/ or solution/, where pnpm would otherwise answer "Command not found".
 */
export const ROOT_COMMANDS = {
  lesson: "pnpm --workspace-root lesson",
  lessons: "pnpm --workspace-root lessons",
  "verify:lesson": "pnpm --workspace-root verify:lesson",
} as const;

export function packageJson(id: string, side: "starter" | "solution"): string {
  return `${layout({
    name: `@bootcamp/lab-${id}-${side}`,
    version: "0.0.0",
    private: true,
    type: "module",
    engines: { node: ">=22.18" },
    scripts: { test: "lab-test", typecheck: "tsc -p .", ...ROOT_COMMANDS },
    devDependencies: {
      "@bootcamp/lab-kit": "workspace:*",
      "@coding-agent/agent-core": "workspace:*",
      typescript: "catalog:",
      vitest: "catalog:",
      zod: "catalog:",
    },
  })}\n`;
}

/** One line: `@lab`, `src/` and `../tests` come from lab-kit's shared lab tsconfig. */
export function tsconfigJson(): string {
  return '{ "extends": "../../../packages/lab-kit/tsconfig.lab.json" }\n';
}

const SHARED_HEAD = `/**
 * 本课练习的入口：把这个示例函数换成本课真正要实现的代码。
 * starter 与 solution 只能在练习区域（#region exercise）内不同。
 */
export function lessonAnswer(input: number): number {
  // #region exercise
`;
const SHARED_TAIL = `  // #endregion exercise
}
`;

export function sourceIndex(id: string, side: "starter" | "solution"): string {
  const body =
    side === "solution"
      ? "  return input * 2;\n"
      : `  // TODO(lab-${id}): 示例练习：让 lessonAnswer 返回 input 的两倍。\n  return input;\n`;
  return `${SHARED_HEAD}${body}${SHARED_TAIL}`;
}

export function labTest(): string {
  return `import { lessonAnswer } from "@lab";
import { describe, expect, it } from "vitest";

describe("lessonAnswer", () => {
  it("doubles its input", () => {
    expect(lessonAnswer(21)).toBe(42);
  });

  it("keeps zero at zero", () => {
    expect(lessonAnswer(0)).toBe(0);
  });
});
`;
}

export function lessonJson(lesson: LessonIdentity): string {
  const failing = "lessonAnswer > doubles its input";
  return `${layout({
    id: lesson.id,
    slug: lesson.slug,
    title: lesson.title,
    week: lesson.week,
    starter: { failing: [failing] },
    mutations: [
      {
        name: "add-instead-of-double",
        description: "把乘 2 写成加 2：示例变异，换成本课警告的真实错误",
        file: "src/index.ts",
        find: "return input * 2;",
        replace: "return input + 2;",
        breaks: [failing],
      },
    ],
    hints: [
      // A direction for the whole lesson first, then each test's mechanism (hint-rules.ts).
      { text: "先读失败输出：期望值和实际值差在哪里？" },
      { test: failing, text: "两倍就是乘以 2。" },
    ],
    rubric: [{ criterion: "示例：返回输入的两倍", proof: [failing, "gate:add-instead-of-double"] }],
    capstone: {
      package: "@coding-agent/agent-core",
      files: ["packages/agent-core/src/index.ts"],
      tests: [`packages/agent-core/tests/lesson-${lesson.id}.test.ts`],
    },
  })}\n`;
}

const README_SECTIONS = [
  ["本课交付结果", "学完这一课，你的 Agent 多了什么能力？用一两句话写清楚。"],
  ["岗位问题", "真实工作中，这一课解决的是哪个问题？"],
  ["前置检查", "```bash\npnpm install\npnpm verify:lesson {id}\n```"],
  ["原理拆解", "讲清原理；状态机或流程用 mermaid 图。"],
  [
    "代码实验",
    "要改哪里、哪个测试会失败、怎样运行：\n\n```bash\npnpm --dir labs/{folder}/starter test\n```",
  ],
  ["运行与验证", "命令以及它们真实打印的输出。"],
  ["常见失败与排查", "症状、根因、如何定位、如何修复。"],
  ["课后作业", ""],
  ["知识检查", ""],
  [
    "验收 Rubric",
    "每一行对应 lesson.json 的一条 rubric；“证明”列写测试全名与 `gate:变异门`（verify:lesson 会核对）。\n\n| 维度 | 通过标准       | 证明                                                               |\n| ---- | -------------- | ------------------------------------------------------------------ |\n| 示例 | 返回输入的两倍 | `lessonAnswer > doubles its input`、`gate:add-instead-of-double` |",
  ],
  ["总项目增量", "包、文件、测试、命令。"],
  ["下一课衔接", ""],
] as const;

export function readme(lesson: LessonIdentity, folder: string): string {
  const sections = README_SECTIONS.map(([heading, body]) => {
    const text = body.replaceAll("{id}", lesson.id).replaceAll("{folder}", folder);
    return text === "" ? `## ${heading}\n` : `## ${heading}\n\n${text}\n`;
  });
  return `# 第 ${lesson.id} 课 · ${lesson.title}\n\n${sections.join("\n")}`;
}
