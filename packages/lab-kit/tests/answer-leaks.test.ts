import { describe, expect, it } from "vitest";
import { checkAnswerLeaks } from "../src/verify/answer-leaks.ts";

const SOLUTION = new Map([
  [
    "src/env.ts",
    [
      "export function build(parent: Env, allowlist: string[]) {",
      "  // #region exercise",
      "  const env: Record<string, string> = {};",
      "  for (const name of allowlist) {",
      "    if (looksSecret(name)) continue;",
      "    const value = Object.hasOwn(parent, name) ? parent[name] : undefined;",
      "  }",
      "  return env;",
      "  // #endregion exercise",
      "}",
      "",
    ].join("\n"),
  ],
]);

const starter = (todo: string) =>
  new Map([
    [
      "src/env.ts",
      [
        "export function build(parent: Env, allowlist: string[]) {",
        "  // #region exercise",
        `  // TODO(lab-13): ${todo}`,
        "  const env: Record<string, string> = {};",
        "  return env;",
        "  // #endregion exercise",
        "}",
        "",
      ].join("\n"),
    ],
  ]);

const README = "# 第 13 课\n\n## 原理拆解\n\n从白名单出发。\n\n## 代码实验\n\n";

describe("checkAnswerLeaks", () => {
  it("passes a TODO that says what to achieve, and scaffolding both sides share", () => {
    const result = checkAnswerLeaks(README, starter("只给白名单上的变量。"), SOLUTION);
    expect(result.ok).toBe(true);
  });

  it("fails a TODO that spells out a line of the solution, naming the line", () => {
    const result = checkAnswerLeaks(
      README,
      starter("写 const value = Object.hasOwn(parent, name) ? parent[name] : undefined;"),
      SOLUTION,
    );
    expect(result.ok).toBe(false);
    expect(result.text).toContain("starter 的 src/env.ts 的注释里写出了答案的一行");
    expect(result.text).toContain("Object.hasOwn(parent, name)");
  });

  it("fails a README that shows a solution line before 代码实验, spaces aside", () => {
    const leaky = README.replace("从白名单出发。", "```ts\nfor (const name of  allowlist) {\n```");
    expect(checkAnswerLeaks(leaky, starter("只给白名单上的变量。"), SOLUTION).text).toContain(
      "README 在“## 代码实验”之前写出了答案的一行",
    );
  });

  it("leaves the README after 代码实验 and short lines alone", () => {
    const later = `${README}\`for (const name of allowlist) {\`\n`;
    expect(checkAnswerLeaks(later, starter("用 return env; 结束。"), SOLUTION).ok).toBe(true);
  });
});
